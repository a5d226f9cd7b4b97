/**
 * Section 5: each function bundle's size, and the time a fresh Node process takes to import it.
 * The bundles are built with esbuild as infra/functions/reprise-function.ts builds them (minified ESM for node22,
 * the createRequire banner), once with the AWS SDK left to the Lambda runtime and once bundled.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { type Cell, kb, median, ms, table } from './format.js';
import { RESOURCE_ENV, resourcesOf } from '../../lib/config/function-env.js';
import type { FunctionName } from '../../lib/config/setting.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const OUT = join(ROOT, 'bench', 'bundles');
const BANNER =
  "import { createRequire as reprise_cr } from 'node:module'; const require = reprise_cr(import.meta.url);";

export type Variant = 'external' | 'bundled';

export interface FunctionLoad {
  readonly name: string;
  /** Minified bundle, source map excluded, with the SDK external (as deployed) and bundled. */
  readonly bytes: Readonly<Record<Variant, number>>;
  /** Median `import()` time in a fresh process, ms. */
  readonly importMs: { readonly external: number; readonly externalSourceMaps: number; readonly bundled: number };
  /** Median wall time of the whole fresh process (Node start, import, exit), SDK external. */
  readonly processMs: number;
  readonly error?: string;
}

export interface ColdStartResult {
  readonly runs: number;
  readonly node: string;
  readonly functions: readonly FunctionLoad[];
  /** The bundles `npm run build` put in dist/lambda/, loaded as deployed on Node 22; absent without them. */
  readonly shipped?: ShippedLoads;
}

export interface ShippedLoads {
  readonly node: string;
  /** The tarball `npm pack` wrote, bytes packed and unpacked. */
  readonly packedBytes: number;
  readonly unpackedBytes: number;
  readonly bundles: readonly {
    /** Its directory in dist/lambda/ (`<entry>-sdk` with the SDK bundled, `<entry>` on the runtime's). */
    readonly dir: string;
    /** Whether the construct deploys it by default (`bundleAwsSdk` unset). */
    readonly byDefault: boolean;
    /** index.mjs and its map. */
    readonly bytes: number;
    readonly mapBytes: number;
    /** Median `import()` time with --enable-source-maps, as deployed, ms. */
    readonly importMs: number;
    /** Median CPU time of the same imports (user + system), ms: less sensitive to a loaded machine. */
    readonly cpuMs: number;
  }[];
}

/** test/node22/package.json installs it (`npm ci --prefix test/node22`). */
const NODE22 = join(ROOT, 'test/node22/node_modules/node/bin/node');

/**
 * The bundles as the package ships them: `npm pack` of the build, unpacked into a directory
 * outside the checkout as `npm install` lays it out, and loaded there on Node 22 (the Lambda
 * runtime's major) with source maps on, as deployed. The bundles deployed by default carry their
 * SDK and resolve nothing; those of `bundleAwsSdk: false` find the runtime's SDK through a link to
 * this checkout's node_modules, as /var/runtime provides it. Undefined without a build or Node 22.
 */
function measureShipped(runs: number): ShippedLoads | undefined {
  if (!existsSync(join(ROOT, 'dist', 'lambda')) || !existsSync(NODE22)) return undefined;
  const at = mkdtempSync(join(tmpdir(), 'reprise-shipped-'));
  try {
    const json = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', at], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const packed = (JSON.parse(json) as { filename: string; size: number; unpackedSize: number }[])[0]!;
    const pkg = join(at, 'app', 'node_modules', 'reprise');
    mkdirSync(pkg, { recursive: true });
    execFileSync('tar', ['-xzf', join(at, packed.filename), '-C', pkg, '--strip-components=1']);
    const runtime = join(at, 'runtime');
    mkdirSync(runtime);
    symlinkSync(join(ROOT, 'node_modules'), join(runtime, 'node_modules'), 'dir');
    const dir = join(pkg, 'dist', 'lambda');
    const bundles = readdirSync(dir)
      .sort()
      .map((d) => {
        let file = join(dir, d, 'index.mjs');
        const byDefault = d.endsWith('-sdk');
        if (!byDefault) {
          // Beside the runtime's SDK, as Lambda runs it: a copy under a directory that links node_modules.
          mkdirSync(join(runtime, d));
          for (const f of readdirSync(join(dir, d))) copyFileSync(join(dir, d, f), join(runtime, d, f));
          file = join(runtime, d, 'index.mjs');
        }
        const env = requiredEnv(readFileSync(join(ROOT, 'functions', `${d.replace(/-sdk$/, '')}.ts`), 'utf8'));
        const samples = Array.from({ length: runs }, () => load(file, env, true, NODE22));
        return {
          dir: d,
          byDefault,
          bytes: statSync(file).size,
          mapBytes: existsSync(`${file}.map`) ? statSync(`${file}.map`).size : 0,
          importMs: median(samples.map((x) => x.importMs)),
          cpuMs: median(samples.map((x) => x.cpuMs)),
        };
      });
    const node = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return { node, packedBytes: packed.size, unpackedBytes: packed.unpackedSize, bundles };
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}

/** Every resource a handler reads (`resourcesFromEnv(process.env, fn)`), by its name, with a placeholder value. */
export function requiredEnv(source: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of source.matchAll(/resourcesFromEnv\(\s*process\.env\s*,\s*'(\w+)'\s*\)/g)) {
    for (const name of resourcesOf(m[1] as FunctionName).map((r) => RESOURCE_ENV[r].env)) {
      env[name] = name.endsWith('_ARN')
        ? `arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-${name.toLowerCase()}`
        : name.endsWith('_URL')
          ? 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-runs.fifo'
          : `bench-${name.toLowerCase()}`;
    }
  }
  return env;
}

async function bundle(entry: string, name: string, variant: Variant): Promise<string> {
  const outfile = join(OUT, variant, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: BANNER },
    external: variant === 'external' ? ['@aws-sdk/*'] : [],
    logLevel: 'error',
  });
  return outfile;
}

const IMPORT =
  'const t = performance.now(); const c = process.cpuUsage(); await import(process.argv[1]); ' +
  'const u = process.cpuUsage(c); ' +
  'process.stdout.write(JSON.stringify({ ms: performance.now() - t, cpu: (u.user + u.system) / 1000 })); process.exit(0);';

function load(
  file: string,
  env: Record<string, string>,
  sourceMaps: boolean,
  node = process.execPath,
): { importMs: number; cpuMs: number; processMs: number } {
  const t0 = performance.now();
  const res = spawnSync(
    node,
    [...(sourceMaps ? ['--enable-source-maps'] : []), '--input-type=module', '-e', IMPORT, pathToFileURL(file).href],
    {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'us-east-1',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...env,
      },
      encoding: 'utf8',
    },
  );
  const processMs = performance.now() - t0;
  if (res.status !== 0)
    throw new Error(`importing ${file} failed: ${res.stderr.trim().split('\n').slice(0, 3).join(' ')}`);
  const out = JSON.parse(res.stdout) as { ms: number; cpu: number };
  return { importMs: out.ms, cpuMs: out.cpu, processMs };
}

export async function measureColdStart(opts: { quick: boolean }): Promise<ColdStartResult> {
  const runs = opts.quick ? 2 : 10;
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const dir = join(ROOT, 'functions');
  const functions: FunctionLoad[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const name = file.replace(/\.ts$/, '');
    const entry = join(dir, file);
    try {
      const env = requiredEnv(readFileSync(entry, 'utf8'));
      const external = await bundle(entry, name, 'external');
      const bundled = await bundle(entry, name, 'bundled');
      const samples = {
        external: [] as number[],
        externalSourceMaps: [] as number[],
        bundled: [] as number[],
        process: [] as number[],
      };
      // Interleaved, so a slow moment of the machine spreads over every variant.
      for (let i = 0; i < runs; i++) {
        const plain = load(external, env, false);
        samples.external.push(plain.importMs);
        samples.process.push(plain.processMs);
        samples.externalSourceMaps.push(load(external, env, true).importMs);
        samples.bundled.push(load(bundled, env, false).importMs);
      }
      functions.push({
        name,
        bytes: { external: statSync(external).size, bundled: statSync(bundled).size },
        importMs: {
          external: median(samples.external),
          externalSourceMaps: median(samples.externalSourceMaps),
          bundled: median(samples.bundled),
        },
        processMs: median(samples.process),
      });
    } catch (err) {
      const nan = Number.NaN;
      functions.push({
        name,
        bytes: { external: nan, bundled: nan },
        importMs: { external: nan, externalSourceMaps: nan, bundled: nan },
        processMs: nan,
        error: (err as Error).message,
      });
    }
  }
  const shipped = measureShipped(runs);
  return { runs, node: process.version, functions, ...(shipped && { shipped }) };
}

export function printColdStart(r: ColdStartResult): string {
  const rows: Cell[][] = r.functions.map((f) =>
    f.error
      ? [f.name, 'error', '-', '-', '-', '-', '-']
      : [
          f.name,
          kb(f.bytes.external),
          kb(f.bytes.bundled),
          ms(f.importMs.external),
          ms(f.importMs.externalSourceMaps),
          ms(f.importMs.bundled),
          ms(f.processMs),
        ],
  );
  const errors = r.functions.filter((f) => f.error).map((f) => `${f.name}: ${f.error}`);
  return [
    table(
      `5. Bundles and load time in a fresh Node ${r.node} process (median of ${r.runs})`,
      [
        'function',
        'size (SDK external)',
        'size (SDK bundled)',
        'import ms',
        'import ms, source maps',
        'import ms, SDK bundled',
        'whole process ms',
      ],
      rows,
    ),
    '',
    'As deployed: the SDK is external (Lambda provides it; ec2-signal bundles its own) and NODE_OPTIONS=--enable-source-maps. ' +
      'Sizes are index.mjs without its source map.',
    ...errors,
    ...(r.shipped
      ? [
          '',
          table(
            `5b. The bundles npm pack ships, unpacked outside the checkout, on Node ${r.shipped.node}, source maps on (median of ${r.runs})`,
            ['bundle', 'deployed by default', 'size', 'map', 'import ms', 'import CPU ms'],
            r.shipped.bundles.map((b) => [
              b.dir,
              b.byDefault ? 'yes' : 'bundleAwsSdk: false',
              kb(b.bytes),
              kb(b.mapBytes),
              ms(b.importMs),
              ms(b.cpuMs),
            ]),
          ),
          `The package: ${kb(r.shipped.packedBytes)} packed, ${kb(r.shipped.unpackedBytes)} unpacked.`,
        ]
      : ['', '(5b skipped: no dist/lambda/ build or no Node 22; npm run build, npm ci --prefix test/node22)']),
  ].join('\n');
}
