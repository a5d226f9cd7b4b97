import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installConsumer } from './consumer.js';

const ROOT = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  types: string;
};

/** The TypeScript app of the README's "Use as a library", as a reader would paste it. */
function readmeApp(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## Use as a library$/m)[1]?.split(/^## /m)[0] ?? '';
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md: no ts block under "Use as a library"');
  return code;
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

let dir: string;
let tarball: string;
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
await import('./app.mjs');
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

beforeAll(() => {
  // Outside the repository: nothing of it is on the app's module path but the installed tarball.
  dir = mkdtempSync(join(tmpdir(), 'reprise-consumer-'));
  // The build is current (the suite's global setup); packing must not build again.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  tarball = packed.trim().split('\n').pop() as string;
  const bytes = statSync(join(dir, tarball)).size;
  console.log(`packed ${tarball}: ${(bytes / 1024 / 1024).toFixed(2)} MB`);

  installConsumer(ROOT, dir, tarball);
  // Only the types go: the app runs as JavaScript, as `cdk` would run a compiled app.
  const js = transformSync(readmeApp(), { loader: 'ts', format: 'esm' }).code;
  writeFileSync(join(dir, 'app.mjs'), js);
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
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('the packed construct library in an app of its own', () => {
  it('installs offline from the tarball with its declarations, and without TypeScript, tsx or esbuild', () => {
    const installed = join(dir, 'node_modules', manifest.name);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))).toMatchObject({
      version: manifest.version,
    });
    expect(existsSync(join(installed, manifest.types))).toBe(true);
    for (const devOnly of ['typescript', 'tsx', 'esbuild', 'vitest']) {
      expect(existsSync(join(dir, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    // The package ships no sources and no tests.
    const shipped = readdirSync(installed, { recursive: true }).map(String);
    expect(shipped.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(shipped.filter((f) => f.includes('test'))).toEqual([]);
  });

  it("synthesizes the README's stack with a runner preset and cdk-nag's AWS Solutions checks, no unacknowledged finding", () => {
    // An unacknowledged finding would have failed the synthesis; the report lists none.
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
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.'));
    const bundles = assets.filter((a) => existsSync(join(outdir, a, 'index.mjs')));
    expect(bundles.length).toBeGreaterThanOrEqual(5);
    const shipped = new Set(
      readdirSync(join(dir, 'node_modules', manifest.name, 'dist/lambda')).map((d) =>
        readFileSync(join(dir, 'node_modules', manifest.name, 'dist/lambda', d, 'index.mjs'), 'utf8'),
      ),
    );
    for (const a of bundles) expect(shipped.has(readFileSync(join(outdir, a, 'index.mjs'), 'utf8'))).toBe(true);
  });
});
