/**
 * A month of one installation's history in the simulator, with every backtest class present:
 * the expected class of each failed attempt, and the delays people took to re-run.
 */
import type { GitHubSimulator, SimActor, SimJobSpec, SimRun } from '../sim/index.js';
import { exitAnnotation, lostAnnotation } from '../support/evidence.js';

export const OWNER = 'acme';
export const INSTALLATION = 4242;

const MIN = 60_000;
const DAY = 86_400_000;

export const ALICE: SimActor = { login: 'alice', type: 'User' };
export const BOB: SimActor = { login: 'bob', type: 'User' };
export const RENOVATE: SimActor = { login: 'renovate[bot]', type: 'Bot' };

export interface Expected {
  readonly run: SimRun;
  readonly attempt: number;
  readonly class: 'agreed_rerun' | 'reprise_only' | 'people_only' | 'agreed_leave';
}

export interface SeededMonth {
  readonly expected: Expected[];
  /** Sum of the delays of the agreed re-runs, in ms. */
  readonly savedDelayMs: number;
  readonly runsListed: number;
}

const lost = (name = 'test'): SimJobSpec => ({
  name,
  conclusion: 'failure',
  runnerName: `ghr-${name}-i-0abc123def4567890`,
  annotations: [lostAnnotation(`ghr-${name}-i-0abc123def4567890`)],
});
const genuine = (name = 'test'): SimJobSpec => ({ name, conclusion: 'failure', annotations: [exitAnnotation(1)] });
const passed = (name: string): SimJobSpec => ({ name, conclusion: 'success' });

/** Seeds the month; `now` is the wall clock the command will read as well. */
export function seedMonth(sim: GitHubSimulator, now = Date.now()): SeededMonth {
  sim.addInstallation({ id: INSTALLATION, account: OWNER });
  const expected: Expected[] = [];
  let saved = 0;
  let listed = 0;
  const at = (daysAgo: number, minutes = 0) => new Date(now - daysAgo * DAY + minutes * MIN).toISOString();

  /** A run failed at `day`, then re-run by `who` after each delay (minutes), each attempt's jobs given. */
  const history = (
    repo: string,
    day: number,
    attempts: { jobs: SimJobSpec[]; actor?: SimActor; afterMin?: number }[],
    workflowName = 'CI',
  ): SimRun => {
    let t = 0;
    listed++;
    return sim.addRunHistory({
      repo,
      workflowName,
      headBranch: `topic-${listed}`,
      attempts: attempts.map((a, i) => {
        t += i === 0 ? 0 : 8 + (a.afterMin ?? 0);
        return {
          jobs: a.jobs,
          ...(a.actor && { actor: a.actor }),
          startedAt: at(day, t),
          completedAt: at(day, t + 8),
        };
      }),
    });
  };
  const expect = (run: SimRun, attempt: number, cls: Expected['class'], delayMin = 0) => {
    expected.push({ run, attempt, class: cls });
    if (cls === 'agreed_rerun') saved += delayMin * MIN;
  };

  // Agreed re-runs: lost to a runner, re-run by a person or a bot, the re-run passed.
  for (const [day, who, delay] of [
    [3, ALICE, 42],
    [9, BOB, 18],
    [15, RENOVATE, 10],
  ] as const) {
    const run = history('acme/web', day, [
      { jobs: [passed('build'), lost('test')] },
      { jobs: [passed('test')], actor: who, afterMin: delay },
    ]);
    expect(run, 1, 'agreed_rerun', delay);
  }
  // Lost twice: the first re-run is agreed; the second has text evidence only at attempt 2
  // (text_only_max_attempts), so reprise would leave it and bob re-ran it: people only.
  const twice = history('acme/web', 12, [
    { jobs: [passed('build'), lost('test')] },
    { jobs: [lost('test')], actor: BOB, afterMin: 30 },
    { jobs: [passed('test')], actor: BOB, afterMin: 5 },
  ]);
  expect(twice, 1, 'agreed_rerun', 30);
  expect(twice, 2, 'people_only');

  // Reprise only: lost to a runner, nobody re-ran it.
  expect(history('acme/web', 5, [{ jobs: [passed('build'), lost('test')] }]), 1, 'reprise_only');
  expect(history('acme/api', 20, [{ jobs: [lost('integration')] }], 'Integration'), 1, 'reprise_only');

  // People only: a genuine failure a person re-ran (a flaky test), and it passed.
  expect(
    history('acme/api', 7, [{ jobs: [genuine('unit')] }, { jobs: [passed('unit')], actor: ALICE, afterMin: 60 }]),
    1,
    'people_only',
  );

  // Agreed leave: genuine failures nobody re-ran; one beyond the log retention (annotations and log gone).
  expect(history('acme/web', 2, [{ jobs: [passed('build'), genuine('test')] }]), 1, 'agreed_leave');
  expect(
    history('acme/api', 25, [
      { jobs: [{ name: 'unit', conclusion: 'failure', annotations: { status: 410 }, log: { status: 410 } }] },
    ]),
    1,
    'agreed_leave',
  );

  // Green runs fill the listing past one page; a red run older than the period is not listed.
  for (let i = 0; i < 110; i++) history('acme/web', 1 + (i % 27), [{ jobs: [passed('build'), passed('test')] }]);
  sim.addRunHistory({
    repo: 'acme/web',
    attempts: [{ jobs: [lost('test')], startedAt: at(40), completedAt: at(40, 8) }],
  });
  return { expected, savedDelayMs: saved, runsListed: listed };
}
