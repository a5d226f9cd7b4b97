/**
 * Section 5: each function bundle's size, and the time a fresh Node process takes to import it.
 * The bundles are built with esbuild as infra/functions.ts builds them (minified ESM for node22,
 * the createRequire banner), once with the AWS SDK left to the Lambda runtime and once bundled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { type Cell, kb, median, ms, table } from './format.js';

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
  readonly bundles: readonly {
    /** Its directory in dist/lambda/ (`<entry>`, or `<entry>-sdk` with the SDK bundled). */
    readonly dir: string;
    /** Whether `npm pack` ships it (package.json "files"). */
    readonly packed: boolean;
    readonly bytes: number;
    /** Median `import()` time with --enable-source-maps, as deployed, ms. */
    readonly importMs: number;
  }[];
}

/** test/node22/package.json installs it (`npm ci --prefix test/node22`). */
const NODE22 = join(ROOT, 'test/node22/node_modules/node/bin/node');

/**
 * The shipped bundles (dist/lambda/, as `npm run build` leaves them) loaded on Node 22, the
 * Lambda runtime's major, with source maps on as deployed; the SDK found beside them in
 * node_modules, as the runtime provides it. Undefined without a build or without Node 22.
 */
function measureShipped(runs: number): ShippedLoads | undefined {
  const dir = join(ROOT, 'dist', 'lambda');
  if (!existsSync(dir) || !existsSync(NODE22)) return undefined;
  const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
  const bundles = readdirSync(dir)
    .sort()
    .map((d) => {
      const file = join(dir, d, 'index.mjs');
      const env = requiredEnv(readFileSync(join(ROOT, 'functions', `${d.replace(/-sdk$/, '')}.ts`), 'utf8'));
      const samples = Array.from({ length: runs }, () => load(file, env, true, NODE22).importMs);
      return {
        dir: d,
        packed: files.includes(`dist/lambda/${d}/`),
        bytes: statSync(file).size,
        importMs: median(samples),
      };
    });
  const node = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return { node, bundles };
}

/** Every `requireEnv(process.env, [...])` name in a handler, with a placeholder value. */
export function requiredEnv(source: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of source.matchAll(/requireEnv\(\s*process\.env\s*,\s*\[([^\]]*)\]/g)) {
    for (const [, name] of m[1]!.matchAll(/'([A-Z0-9_]+)'/g)) {
      env[name!] = name!.endsWith('_ARN')
        ? `arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-${name!.toLowerCase()}`
        : name!.endsWith('_URL')
          ? 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-runs.fifo'
          : `bench-${name!.toLowerCase()}`;
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
  'const t = performance.now(); await import(process.argv[1]); ' +
  'process.stdout.write(JSON.stringify({ ms: performance.now() - t })); process.exit(0);';

function load(
  file: string,
  env: Record<string, string>,
  sourceMaps: boolean,
  node = process.execPath,
): { importMs: number; processMs: number } {
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
  return { importMs: (JSON.parse(res.stdout) as { ms: number }).ms, processMs };
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
            `5b. The bundles in dist/lambda/ on Node ${r.shipped.node}, source maps on (median of ${r.runs})`,
            ['bundle', 'shipped by npm pack', 'size', 'import ms'],
            r.shipped.bundles.map((b) => [b.dir, b.packed ? 'yes' : 'no', kb(b.bytes), ms(b.importMs)]),
          ),
        ]
      : ['', '(5b skipped: no dist/lambda/ build or no Node 22; npm run build, npm ci --prefix test/node22)']),
  ].join('\n');
}
