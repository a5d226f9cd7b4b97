/**
 * One repository cannot steer reprise beyond its own reach, black-box through `npm start` and
 * the GitHub simulator: its file is held under the operator's ceiling, and its lost re-runs
 * pause only its own runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { failureAnnotation, TEXT } from '../support/evidence.js';
import { startTrustRuntime, type TrustRuntime, until } from './trust-support.js';

const INSTALLATION = 7401;
/** A second installation of the same runtime, for the installation breaker's own window. */
const BRAVO = 7402;
const LOST = failureAnnotation(TEXT.selfHostedNamed('r-1'));

let sim: GitHubSimulator;
let rt: TrustRuntime;

beforeAll(async () => {
  sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION, account: 'acme' });
  sim.addInstallation({ id: BRAVO, account: 'bravo' });
  rt = await startTrustRuntime(sim, {
    REPO_MAX_ATTEMPTS_CEILING: '2',
    REPO_EXTRA_PATTERNS: 'false',
    PACE_PER_HOUR: '0',
    WRITE_SPACING_MS: '0',
    BREAKER_MIN_OUTCOMES: '10',
    BREAKER_MIN_REPOSITORIES: '3',
  });
}, 90_000);
afterAll(async () => {
  await rt?.stop();
  await sim?.close();
});

const lostRun = (repo: string, runAttempt = 1, onRerun: 'same' | 'success' = 'success') =>
  sim.addRun({ repo, runAttempt, onRerun, jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }] });

describe("a repository file is held under the operator's ceiling (npm start)", () => {
  it('max_attempts: 50 above REPO_MAX_ATTEMPTS_CEILING=2 is clamped to 2, and the clamp is named on the decision', async () => {
    sim.setRepoFile('acme/greedy', '.github/reprise.yml', 'max_attempts: 50\ntext_only_max_attempts: 50\n');
    // Its second attempt was lost too: under its own file it would go again, under the ceiling not.
    const run = lostRun('acme/greedy', 2);
    expect(await rt.deliver(run.id, INSTALLATION)).toBe(202);
    const line = await rt.line(run.id, 'decision');
    expect(line.decision).not.toBe('retried');
    expect(String(line.reason)).toContain('max_attempts 50 clamped to 2 (REPO_MAX_ATTEMPTS_CEILING)');
    expect(line.config_clamped).toEqual(
      expect.arrayContaining(['text_only_max_attempts 50 clamped to 2 (REPO_MAX_ATTEMPTS_CEILING)']),
    );
    expect(sim.rerunTally(run.id).received).toBe(0);
  });

  it('extra_patterns of a repository file are not evidence when REPO_EXTRA_PATTERNS=false, and the decision says so', async () => {
    // A pattern broad enough to call any failure a runner loss.
    sim.setRepoFile('acme/broad', '.github/reprise.yml', "extra_patterns:\n  - 'failed'\n");
    const run = sim.addRun({
      repo: 'acme/broad',
      jobs: [
        {
          name: 'test',
          conclusion: 'failure',
          annotations: [failureAnnotation('3 tests failed')],
        },
      ],
    });
    expect(await rt.deliver(run.id, INSTALLATION)).toBe(202);
    const line = await rt.line(run.id, 'decision');
    expect(line.decision).not.toBe('retried');
    expect(String(line.reason)).toContain('extra_patterns not used (REPO_EXTRA_PATTERNS=false)');
    expect(sim.rerunTally(run.id).received).toBe(0);
  });
});

describe('the breaker judges each repository apart (npm start)', () => {
  it("a repository that kills its own runner ten times opens its own breaker, and a neighbour's lost run is still re-run", async () => {
    // Ten runs of one repository, each re-run and lost again (a workflow that shuts its runner down).
    const killers = Array.from({ length: 10 }, () => lostRun('acme/selfkill', 1, 'same'));
    for (const r of killers) expect(await rt.deliver(r.id, INSTALLATION)).toBe(202);
    for (const r of killers) expect(await rt.line(r.id, 'decision', 1)).toMatchObject({ decision: 'retried' });
    // Each second attempt's decision records its outcome: lost again.
    for (const r of killers) expect(await rt.deliver(r.id, INSTALLATION)).toBe(202);
    for (const r of killers) await rt.line(r.id, 'decision', 2);
    expect(rt.rt.lines.filter((l) => l.message === 're-run outcome' && l.outcome === 'lost_again')).toHaveLength(10);

    // The repository's next lost run waits for its own breaker; the neighbour's goes.
    const own = lostRun('acme/selfkill');
    const neighbour = lostRun('acme/neighbour');
    expect(await rt.deliver(own.id, INSTALLATION)).toBe(202);
    const paused = await rt.line(own.id, 'decision deferred');
    expect(String(paused.reason)).toMatch(
      /re-runs of the repository acme\/selfkill are paused until .*: 10 of the last 10/,
    );
    expect(await rt.deliver(neighbour.id, INSTALLATION)).toBe(202);
    expect(await rt.line(neighbour.id, 'decision')).toMatchObject({ decision: 'retried' });
    expect(sim.rerunTally(neighbour.id).received).toBe(1);
    expect(sim.rerunTally(own.id).received).toBe(0);
    const opened = rt.rt.lines.filter((l) => String(l.message).startsWith('breaker opened'));
    expect(opened).toEqual([
      expect.objectContaining({
        message: 'breaker opened: automatic re-runs of this repository pause',
        repository: 'acme/selfkill',
      }),
    ]);
  }, 60_000);
});

describe("no repository supplies another's verdict (npm start)", () => {
  it("hostile repository + two incidental losses → a third repository's lost run is re-run", async () => {
    // One repository whose jobs kill their own runner: each of its ten re-runs is lost again.
    const hostile = Array.from({ length: 10 }, () => lostRun('bravo/selfkill', 1, 'same'));
    // Two repositories that, in the normal course, each lose their one re-run.
    const incidental = [lostRun('bravo/api', 1, 'same'), lostRun('bravo/web', 1, 'same')];
    const all = [...hostile, ...incidental];
    for (const r of all) expect(await rt.deliver(r.id, BRAVO)).toBe(202);
    for (const r of all) expect(await rt.line(r.id, 'decision', 1)).toMatchObject({ decision: 'retried' });
    for (const r of all) expect(await rt.deliver(r.id, BRAVO)).toBe(202);
    for (const r of all) await rt.line(r.id, 'decision', 2);
    const lostAgain = rt.rt.lines.filter(
      (l) => l.message === 're-run outcome' && l.outcome === 'lost_again' && all.some((r) => r.id === l.run_id),
    );
    // 12 of 12 lost again, in three repositories: the share, the volume and the spread the old rule asked.
    expect(lostAgain).toHaveLength(12);

    const third = lostRun('bravo/docs');
    expect(await rt.deliver(third.id, BRAVO)).toBe(202);
    expect(await rt.line(third.id, 'decision')).toMatchObject({ decision: 'retried' });
    expect(sim.rerunTally(third.id).received).toBe(1);
    // The hostile repository paused only itself.
    const own = lostRun('bravo/selfkill');
    expect(await rt.deliver(own.id, BRAVO)).toBe(202);
    expect(String((await rt.line(own.id, 'decision deferred')).reason)).toMatch(
      /re-runs of the repository bravo\/selfkill are paused/,
    );
    const opened = rt.rt.lines.filter(
      (l) => String(l.message).startsWith('breaker opened') && l.installation_id === BRAVO,
    );
    expect(opened.map((l) => l.repository)).toEqual(['bravo/selfkill']);
  }, 90_000);
});

describe('repositories take turns in a saturated pace (npm start)', () => {
  it("a repository's burst does not push a neighbour's run past MAX_WAIT_SECONDS: the neighbour gets a turn, the burst's extra runs wait in its line", async () => {
    const sim2 = await GitHubSimulator.start();
    sim2.addInstallation({ id: INSTALLATION, account: 'acme' });
    // Two turns a minute (one every 30 s), and a run waits a minute at most: six runs saturate it.
    const paced = await startTrustRuntime(sim2, {
      MAX_WAIT_SECONDS: '60',
      WRITE_SPACING_MS: '30000',
      PACE_PER_HOUR: '0',
      PACE_REPOSITORY_SHARE_PERCENT: '50',
      BREAKER_MIN_OUTCOMES: '0',
    });
    try {
      const burst = Array.from({ length: 6 }, () =>
        sim2.addRun({ repo: 'acme/burst', jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }] }),
      );
      const settled = (id: number) =>
        paced.rt.lines.some((l) => l.run_id === id && (l.message === 'decision' || l.message === 'run waits'));
      // The burst's first two take the turn now and the one ahead before the rest arrive: a run that
      // starts waiting before the first turn is taken is a millisecond short of the third turn, and
      // is expired at once instead of asking again.
      for (const [i, r] of burst.entries()) {
        expect(await paced.deliver(r.id, INSTALLATION)).toBe(202);
        if (i === 1) for (const s of burst.slice(0, 2)) await until(`run ${s.id} to go or wait`, () => settled(s.id));
      }
      for (const r of burst) await until(`run ${r.id} of the burst to go or wait`, () => settled(r.id));

      const quiet = sim2.addRun({
        repo: 'acme/quiet',
        jobs: [{ name: 'build', conclusion: 'failure', annotations: [LOST] }],
      });
      expect(await paced.deliver(quiet.id, INSTALLATION)).toBe(202);
      await until(`the neighbour's run to go or wait`, () => settled(quiet.id));

      // Each run's first answer, whenever the check comes: lines after it depend on the wall clock
      // (an extra run of the burst that asks again once the pace is full is expired then, rightly).
      const first = (id: number) =>
        paced.rt.lines.find((l) => l.run_id === id && (l.message === 'decision' || l.message === 'run waits'))!;

      // The neighbour holds a turn within its wait, the burst's first round ahead of it at most; it is not expired.
      const neighbour = first(quiet.id);
      // (A machine slow enough to reach the neighbour after the burst's turns gives it a turn at once.)
      if (neighbour.message === 'decision') expect(neighbour.decision).toBe('retried');
      else {
        expect(String(neighbour.reason)).toMatch(
          /^waiting for a re-run turn in its repository's line \(repositories take turns\); asking again in \d+s$/,
        );
        expect(Number(neighbour.wait_seconds)).toBeLessThanOrEqual(60);
      }
      expect(paced.rt.lines.filter((l) => l.run_id === quiet.id && l.decision === 'expired')).toEqual([]);
      // The burst took the turn now; its next runs hold places in its line, and those whose place
      // would come after their wait are expired at once rather than fill the pace ahead of others.
      const burstFirst = burst.map((r) => first(r.id));
      expect(
        burstFirst.filter((l) => l.message === 'decision' && !['retried', 'expired'].includes(String(l.decision))),
      ).toEqual([]);
      expect(
        burstFirst.filter((l) => l.message === 'run waits' && /in its repository's line/.test(String(l.reason))),
      ).not.toHaveLength(0);
    } finally {
      await paced.stop();
      await sim2.close();
    }
  }, 60_000);
});
