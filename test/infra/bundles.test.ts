import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';
import { resourcesOf, synthReprise } from './synth.js';

const KB = 1024;

/** Size goals of the minified bundles (index.mjs, source map excluded). */
const GOALS: Record<string, number> = {
  Intake: 500 * KB,
  Worker: 1536 * KB,
  // Bundles its AWS SDK (EC2 client) for a faster cold start.
  Ec2Signal: 1536 * KB,
  SignalIntake: 500 * KB,
  Reconciler: 1536 * KB,
};

interface BundleSize {
  readonly bytes: number;
  readonly goalBytes: number;
  readonly sourceMapBytes: number;
}

let sizes: Record<string, BundleSize>;

beforeAll(() => {
  // The one synth of this file that runs esbuild for real.
  const { template, outdir } = synthReprise({}, { bundle: true });
  sizes = {};
  for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
    const name = Object.keys(GOALS).find((n) => id.startsWith(`Reprise${n}Function`));
    if (!name) continue;
    // The S3 key of a bundled asset is `<hash>.zip`; the staged directory is `asset.<hash>`.
    const key = (fn.Properties?.Code as { S3Key: string }).S3Key;
    const dir = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    sizes[name] = {
      bytes: statSync(join(dir, 'index.mjs')).size,
      goalBytes: GOALS[name] as number,
      sourceMapBytes: statSync(join(dir, 'index.mjs.map')).size,
    };
  }
  const bench = join(PROJECT_ROOT, 'bench');
  mkdirSync(bench, { recursive: true });
  writeFileSync(
    join(bench, 'bundle-sizes.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), bundles: sizes }, null, 2)}\n`,
  );
}, 120_000);

describe('function bundles', () => {
  it('bundles every function with esbuild into an ES module', () => {
    expect(Object.keys(sizes).sort()).toEqual(Object.keys(GOALS).sort());
  });

  it.each(Object.keys(GOALS))('%s stays within its size goal', (name) => {
    const size = sizes[name] as BundleSize;
    expect(size.bytes).toBeGreaterThan(0);
    expect(size.bytes, `${name}: ${(size.bytes / KB).toFixed(0)} KB`).toBeLessThanOrEqual(size.goalBytes);
  });
});
