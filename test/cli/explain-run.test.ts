import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explain } from '../../lib/cli/explain.js';
import { appEnv, startHarness, type Harness } from '../support/harness.js';
import { captureIo } from './support.js';

/** As spdk/spdk#3876 quotes it (test/fixtures/real-reports). */
const NOT_ACQUIRED = 'The job was not acquired by Runner of type hosted even after multiple attempts';

describe('reprise explain shows a GitHub platform failure as its own source, with platform_errors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.sim.setRepoFile('acme/left', '.github/reprise.yml', 'platform_errors: leave\n');
  });
  afterAll(async () => {
    await h.close();
  });

  const platformRun = (repo: string) =>
    h.sim.addRun({
      repo,
      jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: NOT_ACQUIRED }] }],
    });

  it('platform_errors absent: the job is infra by `platform`, the run would be re-run, a note names the setting', async () => {
    const run = platformRun('acme/platform');
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/platform', String(run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^build +failure +\S+ +infra +platform +platform not-acquired$/m);
    expect(out).toContain('Decision: would re-run the failed jobs');
    expect(out).toContain('(GitHub platform failure: platform not-acquired)');
    expect(out).toContain('Note: GitHub platform failure seen; platform_errors: rerun');
    expect(h.sim.rerunTally(run.id).received).toBe(0);
  });

  it('platform_errors: leave in the repository file: no_infra_evidence, its reason and note name the setting', async () => {
    const run = platformRun('acme/left');
    const io = captureIo(appEnv(h.sim.url));
    expect(await explain(['acme/left', String(run.id)], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('Decision: no_infra_evidence');
    expect(out).toContain('and platform_errors is leave');
    expect(out).toContain('Note: GitHub platform failure seen; platform_errors: leave');
  });
});
