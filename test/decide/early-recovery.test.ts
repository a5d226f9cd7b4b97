/**
 * Issue 40, the early-recovery decision as a table: each row is one rule of docs/design.md
 * ("Early recovery"), in the order the rules are checked.
 */
import { describe, expect, it } from 'vitest';
import {
  decideRecovery,
  lossAt,
  lossProvenAt,
  type RecoveryFacts,
  recoveryTiming,
  SPOT_WARNING_LEAD_MS,
} from '../../lib/decide/early-recovery.js';
import type { JobFacts, JobVerdict, RunnerSignal, SignalKind } from '../../lib/model.js';

const NOW = Date.parse('2026-10-02T16:30:00Z');
const LOST = 'ghr-i-0123456789abcdef0';

const job = (id: number, name: string, status: string, runnerName: string | null, attempt = 1): JobFacts => ({
  id,
  nodeId: `CR_${id}`,
  name,
  status,
  conclusion: status === 'completed' ? 'success' : null,
  runnerName,
  completedAt: null,
  runAttempt: attempt,
});

const BUILD = job(1, 'build', 'in_progress', LOST);
const facts = (over: Partial<RecoveryFacts> = {}): RecoveryFacts => ({
  mode: 'last_job',
  dryRun: false,
  now: NOW,
  run: { status: 'in_progress', runAttempt: 1 },
  jobs: [BUILD, job(2, 'lint', 'completed', 'healthy-1')],
  request: { jobId: 1, runnerName: LOST },
  provenGone: new Map([[LOST, NOW - 1000]]),
  ...over,
});

describe('decideRecovery: one row per rule', () => {
  it.each<[string, Partial<RecoveryFacts>, string, string]>([
    ['early_recovery off', { mode: 'off' }, 'leave', 'off'],
    ['the run already completed', { run: { status: 'completed', runAttempt: 1 } }, 'leave', 'run_completed'],
    ['a superseded run is never ended', { stale: 'a newer run 9 exists' }, 'leave', 'stale'],
    ['reprise ended this attempt before', { alreadyEnded: true }, 'leave', 'already_ended'],
    [
      'the named job has ended (a runner gone after its job)',
      { jobs: [{ ...BUILD, status: 'completed' }] },
      'leave',
      'job_ended',
    ],
    ['the named job is of an earlier attempt', { run: { status: 'in_progress', runAttempt: 2 } }, 'leave', 'job_ended'],
    ['the named job runs on another runner now', { jobs: [{ ...BUILD, runnerName: 'other' }] }, 'leave', 'job_ended'],
    ['no exact signal for its runner', { provenGone: new Map() }, 'leave', 'not_proven'],
    ['a spot warning still in its two minutes', { provenGone: new Map([[LOST, NOW + 5000]]) }, 'wait_for_proof', ''],
    [
      'last_job with a healthy job running',
      { jobs: [BUILD, job(2, 'test', 'in_progress', 'healthy-1')] },
      'wait_for_siblings',
      '',
    ],
    [
      'last_job with a sibling whose own warning is not yet proven waits for it',
      {
        jobs: [BUILD, job(2, 'test', 'in_progress', 'warned')],
        provenGone: new Map([
          [LOST, NOW - 1000],
          ['warned', NOW + 60_000],
        ]),
      },
      'wait_for_siblings',
      '',
    ],
    ['last_job, the lost job the last one running', {}, 'end_run', ''],
    [
      'last_job, a queued job waits on the lost one',
      { jobs: [BUILD, job(3, 'deploy', 'queued', null)] },
      'end_run',
      '',
    ],
    [
      'last_job, every running job on a lost runner',
      {
        jobs: [BUILD, job(2, 'test', 'in_progress', 'lost-2')],
        provenGone: new Map([
          [LOST, NOW - 1000],
          ['lost-2', NOW - 500],
        ]),
      },
      'end_run',
      '',
    ],
    [
      'now, with a healthy job running',
      { mode: 'now', jobs: [BUILD, job(2, 'test', 'in_progress', 'h')] },
      'end_run',
      '',
    ],
    ['dry_run logs what it would do', { dryRun: true }, 'leave', 'dry_run'],
  ])('%s → %s %s', (_label, over, kind, outcome) => {
    const step = decideRecovery(facts(over));
    expect(step.kind).toBe(kind);
    if (step.kind === 'leave') expect(step.outcome).toBe(outcome);
  });

  it('now: the healthy siblings and the queued jobs are named as ended and re-run too', () => {
    const step = decideRecovery(
      facts({ mode: 'now', jobs: [BUILD, job(2, 'test', 'in_progress', 'h'), job(3, 'deploy', 'queued', null)] }),
    );
    expect(step).toMatchObject({ kind: 'end_run' });
    if (step.kind !== 'end_run') return;
    expect(step.lost.map((j) => j.name)).toEqual(['build']);
    expect(step.alsoEnded.map((j) => j.name)).toEqual(['test', 'deploy']);
    expect(step.reason).toContain('also ended and re-run: "test", "deploy"');
  });

  it('the wait for the proof ends when the warning’s two minutes pass', () => {
    const step = decideRecovery(facts({ provenGone: new Map([[LOST, NOW + 5000]]) }));
    expect(step).toMatchObject({ kind: 'wait_for_proof', untilMs: NOW + 5000 });
  });
});

const signal = (kind: SignalKind, at: string): RunnerSignal => ({
  runnerKey: LOST,
  kind,
  eventTime: at,
  source: 'aws.ec2',
});

describe('when signals prove a runner gone', () => {
  it.each<[string, RunnerSignal[], number | undefined]>([
    [
      'a termination proves it at once',
      [signal('terminated', '2026-10-02T16:20:00Z')],
      Date.parse('2026-10-02T16:20:00Z'),
    ],
    [
      'an agent’s external signal at once',
      [signal('external', '2026-10-02T16:20:00Z')],
      Date.parse('2026-10-02T16:20:00Z'),
    ],
    [
      'a spot warning two minutes later',
      [signal('spot-interruption', '2026-10-02T16:20:00Z')],
      Date.parse('2026-10-02T16:20:00Z') + SPOT_WARNING_LEAD_MS,
    ],
    ['a rebalance recommendation never', [signal('rebalance', '2026-10-02T16:20:00Z')], undefined],
    [
      'the earliest proof of several',
      [signal('spot-interruption', '2026-10-02T16:20:00Z'), signal('terminated', '2026-10-02T16:21:00Z')],
      Date.parse('2026-10-02T16:21:00Z'),
    ],
  ])('%s', (_label, signals, at) => {
    expect(lossProvenAt(signals)).toBe(at);
  });

  it('the loss itself is the earliest exact signal, the warning included', () => {
    const signals = [signal('terminated', '2026-10-02T16:22:00Z'), signal('spot-interruption', '2026-10-02T16:20:00Z')];
    expect(lossAt(signals)).toBe('2026-10-02T16:20:00.000Z');
    expect(lossAt([signal('rebalance', '2026-10-02T16:20:00Z')])).toBeUndefined();
  });
});

describe('the time to recovery, from the loss', () => {
  const lostAt = '2026-10-02T16:20:00.000Z';
  const verdict = (completedAt: string | null, withSignal = true): JobVerdict => ({
    job: { ...BUILD, conclusion: 'failure', status: 'completed', completedAt },
    verdict: 'infra',
    source: withSignal ? 'signal' : 'annotations',
    evidence: 'x',
    ...(withSignal && { lostAt }),
  });

  it('early: seconds from the signal to the accepted re-run, nothing waited for GitHub', () => {
    const t = recoveryTiming([verdict('2026-10-02T16:20:20Z')], Date.parse('2026-10-02T16:20:31Z'), true, true);
    expect(t).toEqual({ lostAt, early: true, secondsToRerun: 31, secondsWaitedForGitHub: null });
  });

  it('without early recovery: how long GitHub took to fail the job after the signal', () => {
    const t = recoveryTiming([verdict('2026-10-02T16:30:05Z')], Date.parse('2026-10-02T16:30:08Z'), true, false);
    expect(t).toEqual({ lostAt, early: false, secondsToRerun: 608, secondsWaitedForGitHub: 605 });
  });

  it('no re-run: no time to re-run; text evidence alone: no timing at all', () => {
    expect(recoveryTiming([verdict(null)], NOW, false, false)).toMatchObject({ secondsToRerun: null });
    expect(recoveryTiming([verdict('2026-10-02T16:30:05Z', false)], NOW, true, false)).toBeUndefined();
  });
});
