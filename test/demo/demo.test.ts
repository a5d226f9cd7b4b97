import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'reprise-demo-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run demo', () => {
  it("explains the report's count: the demo's seven runs plus the re-run attempts decided again", async () => {
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'test/demo/demo.ts', '--report', join(dir, 'report.html')],
      { cwd: ROOT, timeout: 180_000, env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const runs = Number(
      /^(\d+) runs, \d+ re-run call\(s\) made, (?:\d+ pull request\(s\) put back in the merge queue, )?0 mismatch\(es\)\.$/m.exec(
        stdout,
      )?.[1],
    );
    expect(runs).toBe(7);
    const sum = /The report counts run attempts: (\d+) \+ (\d+) = (\d+)\.$/m.exec(stdout);
    expect(sum, stdout).not.toBeNull();
    const [first, again, total] = [Number(sum?.[1]), Number(sum?.[2]), Number(sum?.[3])];
    // Every run decided once (the duplicate delivery is not a decision), then the red re-runs.
    expect(first).toBe(runs);
    expect(total).toBe(first + again);
    expect(stdout).toMatch(new RegExp(`^Run attempts decided: ${total}$`, 'm'));
  }, 200_000);
});
