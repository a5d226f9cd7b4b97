/**
 * The package as a platform team meets it before it is published: packed with `npm pack`, installed
 * from the tarball into a CDK app of their own outside this repository (docs/examples/consumer-app,
 * the README's example whole), compiled with tsc and synthesized with cdk-nag. The install is
 * weighed, the tarball's contents checked against what the construct deploys, the `reprise` command
 * run from it, and every bundle it ships loaded on Node 22, the Lambda runtime's major.
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
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredEnv } from '../bench/cold-start.js';
import { installConsumer } from './consumer.js';

const ROOT = join(import.meta.dirname, '../..');
const EXAMPLE = join(ROOT, 'docs/examples/consumer-app');
/** test/node22/package.json installs it (`npm ci --prefix test/node22`, as .ci/run does). */
const NODE22 = join(ROOT, 'test/node22/node_modules/node/bin/node');
const MB = 1024 * 1024;

/** What a construct-only install may weigh, the peers (aws-cdk-lib, constructs, cdk-nag) aside. */
const BOUNDS = { packed: 3 * MB, unpacked: 8 * MB, installed: 10 * MB } as const;
/** The command's and the functions' libraries: bundled into the package, never installed with it. */
const RUNTIME_ONLY = ['@aws-sdk', '@smithy', '@octokit', '@aws-lambda-powertools', 'bottleneck', 'yaml'];

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  types: string;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

/** The TypeScript block of the README's "Use as a library". */
function readmeApp(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Use as a library$/m)[1]?.split(/^## /m)[0] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md: no ts block under "Use as a library"');
  return code;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs: Record<string, { Description?: string; Value: unknown }>;
}

let dir: string;
let packed: Packed;
let outdir: string;
let template: Template;
let control: string;

const CONTROL = `
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
await import('./dist/bin/app.js');
const bad = new App({ outdir: mkdtempSync(join(tmpdir(), 'reprise-control-')), autoSynth: false });
new Queue(new Stack(bad, 'Bad'), 'Plain', { encryption: QueueEncryption.UNENCRYPTED });
Validations.of(bad).addPlugins(new AwsSolutionsChecks(bad));
try {
  bad.synth();
  console.log('control: synthesized');
} catch (err) {
  const report = JSON.parse(readFileSync(join(bad.outdir, 'validation-report.json'), 'utf8'));
  const rules = report.pluginReports.flatMap((r) => r.violations.map((v) => r.pluginName + ':' + v.ruleName));
  console.log('control: refused ' + JSON.stringify([...new Set(rules)].sort()));
}
`;

/** Bytes of every file under `path`. */
function du(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((n, name) => n + du(join(path, name)), 0);
}

/** The installed packages (`name` or `@scope/name`) directly under a node_modules directory. */
function packagesIn(nodeModules: string): string[] {
  return readdirSync(nodeModules)
    .filter((d) => !d.startsWith('.'))
    .flatMap((d) => (d.startsWith('@') ? readdirSync(join(nodeModules, d)).map((s) => `${d}/${s}`) : [d]));
}

beforeAll(() => {
  // Outside the repository: nothing of it is on the app's module path but the installed tarball.
  dir = mkdtempSync(join(tmpdir(), 'reprise-consumer-'));
  // The build is current (the suite's global setup); packing must not build again.
  const json = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  packed = (JSON.parse(json) as Packed[])[0] as Packed;
  installConsumer(ROOT, dir, packed.filename);
  for (const f of ['bin/app.ts', 'tsconfig.json', 'cdk.json']) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(EXAMPLE, f), join(dir, f));
  }
  // Typed as the reader types it: tsc against the package's declarations and the peers' own.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
    cwd: dir,
    encoding: 'utf8',
  });
  outdir = join(dir, 'cdk.out');
  // The control, in the same process: an app of the consumer's own with a finding nobody acknowledged.
  writeFileSync(join(dir, 'control.mjs'), CONTROL);
  // CDK_OUTDIR is how the cdk CLI runs an app: it synthesizes on exit, cdk-nag's checks included.
  control = execFileSync(process.execPath, ['control.mjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CDK_OUTDIR: outdir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  template = JSON.parse(readFileSync(join(outdir, 'Runners.template.json'), 'utf8')) as Template;
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const installed = (...p: string[]) => join(dir, 'node_modules', manifest.name, ...p);

/** Each asset directory of the synthesized app that holds a function bundle, by its index.mjs. */
function deployedBundles(): Set<string> {
  return new Set(
    readdirSync(outdir)
      .filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')))
      .map((d) => readFileSync(join(outdir, d, 'index.mjs'), 'utf8')),
  );
}

describe('the packed package in an app of its own', () => {
  it('installs from the tarball npm pack writes, as the README says, with its declarations and no TypeScript, tsx or esbuild', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm pack');
    expect(readme).toContain(`npm install ./${packed.filename} aws-cdk-lib constructs cdk-nag`);
    expect(packed.filename).toBe(`${manifest.name}-${manifest.version}.tgz`);
    expect(JSON.parse(readFileSync(installed('package.json'), 'utf8'))).toMatchObject({ version: manifest.version });
    expect(existsSync(installed(manifest.types))).toBe(true);
    for (const devOnly of ['typescript', 'tsx', 'esbuild', 'vitest']) {
      expect(existsSync(join(dir, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    const shipped = packed.files.map((f) => f.path);
    expect(shipped.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(shipped.filter((f) => f.includes('test'))).toEqual([]);
  });

  it('a construct-only install is light: no runtime SDKs installed, and its size reported and bounded', () => {
    const peers = peerClosure();
    const all = packagesIn(join(dir, 'node_modules'));
    const own = all.filter((p) => !peers.has(p));
    const sizes = Object.fromEntries(own.map((p) => [p, du(join(dir, 'node_modules', p))]));
    const installedBytes = Object.values(sizes).reduce((a, b) => a + b, 0);
    const peerBytes = all.filter((p) => !own.includes(p)).reduce((n, p) => n + du(join(dir, 'node_modules', p)), 0);
    const mb = (n: number) => `${(n / MB).toFixed(2)} MB`;
    console.log(
      `package ${packed.filename}: ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ` +
        `${packed.files.length} files; installed beside the peers: ${mb(installedBytes)} ` +
        `(${Object.entries(sizes)
          .map(([p, n]) => `${p} ${mb(n)}`)
          .join(', ')}); the peers and theirs: ${mb(peerBytes)}`,
    );
    expect(own.sort()).toEqual([manifest.name, ...Object.keys(manifest.dependencies)].sort());
    for (const scope of RUNTIME_ONLY) expect(all.filter((p) => p === scope || p.startsWith(`${scope}/`))).toEqual([]);
    expect(packed.size).toBeLessThanOrEqual(BOUNDS.packed);
    expect(packed.unpackedSize).toBeLessThanOrEqual(BOUNDS.unpacked);
    expect(installedBytes).toBeLessThanOrEqual(BOUNDS.installed);
  });

  it("ships the bundles the functions deploy by default (their SDK bundled), those of bundleAwsSdk: false, and not the repository's own CDK app", () => {
    const shipped = packed.files.map((f) => f.path);
    expect(shipped.filter((f) => /^dist\/infra\/(app\.|build\/)/.test(f))).toEqual([]);
    // Of the ledger, only the table grants per function the construct writes (infra/storage.ts).
    expect(shipped.filter((f) => /^dist\/lib\/(local|cli|worker|github)\//.test(f))).toEqual([]);
    expect(shipped.filter((f) => f.startsWith('dist/lib/ledger/')).sort()).toEqual(
      ['access.d.ts', 'access.js', 'keys.d.ts', 'keys.js'].map((f) => `dist/lib/ledger/${f}`),
    );
    const deployed = deployedBundles();
    const bundleDirs = [...new Set(shipped.filter((f) => f.startsWith('dist/lambda/')).map((f) => dirname(f)))];
    // Five with their SDK (deployed by default), four on the runtime's (ec2-signal always bundles its own).
    expect(bundleDirs.length).toBe(9);
    for (const d of bundleDirs.filter((b) => b.endsWith('-sdk'))) {
      expect(deployed.has(readFileSync(installed(d, 'index.mjs'), 'utf8')), `${d} is deployed`).toBe(true);
    }
    // A map only beside a bundle the functions run with --enable-source-maps.
    for (const map of shipped.filter((f) => f.endsWith('.map'))) {
      expect(bundleDirs, map).toContain(dirname(map));
    }
  });

  it("synthesizes docs/examples/consumer-app, the README's example whole, typed by tsc, with cdk-nag's checks and no unacknowledged finding", () => {
    expect(readFileSync(join(EXAMPLE, 'bin/app.ts'), 'utf8')).toBe(readmeApp());
    const example = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(example.dependencies).toEqual({ [manifest.name]: `file:${packed.filename}`, ...manifest.peerDependencies });
    expect(existsSync(join(dir, 'dist/bin/app.js'))).toBe(true);
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations?: unknown[] }[];
    };
    expect(report.pluginReports.flatMap((r) => r.violations ?? [])).toEqual([]);
    // The same checks refuse the consumer's own unencrypted queue: they ran, and they can fail.
    expect(control).toContain('control: refused ["AwsSolutions:AwsSolutions-SQS2","AwsSolutions:AwsSolutions-SQS3"');
    const fns = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    const presets = fns.map(
      (f) => (f.Properties?.Environment as { Variables?: Record<string, string> })?.Variables?.RUNNER_PRESET,
    );
    expect(presets.filter((p) => p === 'cdk-github-runners')).toHaveLength(3);
  });

  it('deploys the handlers the package ships, as they are', () => {
    const shipped = new Set(
      readdirSync(installed('dist/lambda')).map((d) => readFileSync(installed('dist/lambda', d, 'index.mjs'), 'utf8')),
    );
    const deployed = deployedBundles();
    expect(deployed.size).toBeGreaterThanOrEqual(5);
    for (const b of deployed) expect(shipped.has(b)).toBe(true);
  });

  it("the reprise command runs from the package, without its libraries installed, and finds every output in the app's template", async () => {
    const help = spawnSync(join(dir, 'node_modules/.bin/reprise'), ['decisions', '--help'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(help.stderr).toBe('');
    expect(help.stdout).toContain('Usage: reprise decisions');
    const { repriseOutputs, STACK_OUTPUT_NAMES } = (await import(
      pathToFileURL(installed('dist/lib/config/stack-outputs.js')).href
    )) as typeof import('../../lib/config/stack-outputs.js');
    const described = Object.entries(template.Outputs).map(([key, o]) => ({
      OutputKey: key,
      OutputValue: `deployed ${key}`,
      Description: o.Description,
    }));
    const found = repriseOutputs(described);
    expect(found.ok && [...found.outputs.keys()].sort()).toEqual([...STACK_OUTPUT_NAMES].sort());
  });

  it("bundleAwsSdk: false from the package deploys the bundles it ships that import the Lambda runtime's SDK", () => {
    const script = `
      import { App, Stack } from 'aws-cdk-lib';
      import { Reprise } from 'reprise';
      import { readdirSync, readFileSync, existsSync } from 'node:fs';
      import { join } from 'node:path';
      const app = new App({ outdir: 'cdk.out.runtime-sdk' });
      new Reprise(new Stack(app, 'S'), 'Reprise', { bundleAwsSdk: false });
      const out = app.synth().directory;
      const bundles = readdirSync(out).filter((d) => existsSync(join(out, d, 'index.mjs')));
      console.log(JSON.stringify(bundles.map((d) => readFileSync(join(out, d, 'index.mjs'), 'utf8').includes('from"@aws-sdk/'))));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
    // Four import the runtime's SDK; ec2-signal carries its own either way.
    expect((JSON.parse(out.trim()) as boolean[]).sort()).toEqual([false, true, true, true, true]);
  });

  const node22 = existsSync(NODE22);
  if (!node22 && !process.env.CI) {
    console.log(`skipped: the Node 22 bundle test (no ${NODE22}; run npm ci --prefix test/node22)`);
  }
  it.skipIf(!node22 && !process.env.CI)(
    "every bundle it ships loads on Node 22, the Lambda runtime's major, and exports its handler",
    () => {
      expect(existsSync(NODE22), `${NODE22}: run npm ci --prefix test/node22 (.ci/run does)`).toBe(true);
      expect(execFileSync(NODE22, ['--version'], { encoding: 'utf8' })).toMatch(/^v22\./);
      const at = mkdtempSync(join(tmpdir(), 'reprise-node22-'));
      try {
        // /var/task beside the runtime's SDK: the bundles that leave the SDK external find it here.
        symlinkSync(join(ROOT, 'node_modules'), join(at, 'node_modules'), 'dir');
        for (const d of readdirSync(installed('dist/lambda'))) {
          mkdirSync(join(at, d));
          for (const f of readdirSync(installed('dist/lambda', d)))
            copyFileSync(installed('dist/lambda', d, f), join(at, d, f));
          const source = readFileSync(join(ROOT, 'functions', `${d.replace(/-sdk$/, '')}.ts`), 'utf8');
          const run = spawnSync(
            NODE22,
            [
              '--enable-source-maps',
              '--input-type=module',
              '-e',
              'const m = await import(process.argv[1]); console.log(process.version, typeof m.handler);',
              pathToFileURL(join(at, d, 'index.mjs')).href,
            ],
            {
              env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', ...requiredEnv(source) },
              encoding: 'utf8',
            },
          );
          expect(run.stderr, d).toBe('');
          expect(run.stdout.trim(), d).toMatch(/^v22\.\d+\.\d+ function$/);
        }
      } finally {
        rmSync(at, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

/** The packages the peers pull in, by the consumer's lock file: what any CDK app with cdk-nag has. */
function peerClosure(): Set<string> {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };
  const seen = new Set<string>();
  const todo = Object.keys(manifest.peerDependencies);
  while (todo.length > 0) {
    const name = todo.pop() as string;
    const entry = lock.packages[`node_modules/${name}`];
    if (seen.has(name) || !entry) continue;
    seen.add(name);
    todo.push(...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }));
  }
  return seen;
}
