import { describe, expect, it } from 'vitest';
import { classifyJob, type JobEvidence } from '../../lib/classify/classify-job.js';
import { compileExtraPatterns } from '../../lib/classify/patterns.js';
import { firstByPrecedence, PRECEDENCE, type PrecedenceRow } from '../../lib/classify/precedence.js';
import type { Annotation, JobFacts, JobVerdict, RunnerSignal } from '../../lib/model.js';
import { ann, cancelledJob, evidence, failedJob, logErrors, signal } from '../support/fixtures.js';
import { TEXT } from '../support/evidence.js';

const NOT_ACQUIRED = 'The job was not acquired by Runner of type hosted even after multiple attempts';
/** An EC2 state change nothing warned of: a loss with text strength. */
const STATE_CHANGE = signal('terminated', { source: 'aws.ec2' });

/** What each family leaves on a failed job's annotations and signals, alone. */
const LEAVES: Record<PrecedenceRow['family'], { annotations: Annotation[]; signals: RunnerSignal[] }> = {
  veto: { annotations: [ann(TEXT.person)], signals: [] },
  'exit-code': { annotations: [ann(TEXT.exitCode(2))], signals: [] },
  // Another failure text counts against a loss only beside one: a shutdown signal stands here for it.
  'failure-text': { annotations: [ann('Error: 3 tests failed'), ann(TEXT.shutdown)], signals: [] },
  signal: { annotations: [], signals: [signal('spot-interruption')] },
  'runner-loss': { annotations: [ann(TEXT.selfHostedNamed())], signals: [] },
  platform: { annotations: [ann(NOT_ACQUIRED)], signals: [] },
  'state-change': { annotations: [], signals: [STATE_CHANGE] },
};

const classified = (job: JobFacts, ev: JobEvidence, extra = compileExtraPatterns('')): JobVerdict => {
  const c = classifyJob(job, ev, extra);
  if (c.kind !== 'verdict') throw new Error(`no verdict: ${c.kind}`);
  return c.verdict;
};

describe('the precedence between evidence families is one table, and the classifier chooses by it', () => {
  it('names every family that can decide once, the strongest first', () => {
    expect(PRECEDENCE.map((r) => r.family)).toEqual([
      'veto',
      'exit-code',
      'failure-text',
      'signal',
      'runner-loss',
      'platform',
      'state-change',
    ]);
    for (const row of PRECEDENCE) expect(row.why.length).toBeGreaterThan(20);
  });

  it.each(PRECEDENCE.map((r) => [r.family, r] as const))('%s alone decides, with its verdict', (_, row) => {
    const leaves = LEAVES[row.family];
    const v = classified(failedJob(), evidence(leaves.annotations, { signals: leaves.signals }));
    expect({ family: v.family, verdict: v.verdict }).toEqual({ family: row.family, verdict: row.verdict });
  });

  const pairs = PRECEDENCE.flatMap((higher, i) =>
    PRECEDENCE.slice(i + 1).map((lower) => [higher.family, lower.family, higher] as const),
  );
  it.each(pairs)('%s found beside %s: the first in the table decides', (_, lower, higher) => {
    const a = LEAVES[higher.family];
    const b = LEAVES[lower];
    const v = classified(
      failedJob(),
      evidence([...a.annotations, ...b.annotations], { signals: [...a.signals, ...b.signals] }),
    );
    expect({ family: v.family, verdict: v.verdict }).toEqual({ family: higher.family, verdict: higher.verdict });
  });

  it('in the log the same order holds: a real failure on a failed job over the loss beside it, the loss over a platform text', () => {
    const logOf = (...errors: string[]) => evidence([], { log: logErrors(...errors) });
    expect(classified(failedJob(), logOf('Error: 3 tests failed', TEXT.shutdown)).family).toBe('failure-text');
    expect(classified(failedJob(), logOf(NOT_ACQUIRED, TEXT.shutdown))).toMatchObject({
      family: 'runner-loss',
      pattern: 'shutdown-signal',
      source: 'annotations+logs',
    });
    // A cancelled job (sent to its log by the echo) has no real failure to weigh against the loss.
    const echoed = evidence([ann(TEXT.echo)], { log: logErrors('Error: 3 tests failed', TEXT.shutdown) });
    expect(classified(cancelledJob(), echoed).family).toBe('runner-loss');
  });

  it('asks a family only when every family above it found nothing', () => {
    const asked: string[] = [];
    const ask = (family: string, hit: string | undefined) => () => {
      asked.push(family);
      return hit;
    };
    const first = firstByPrecedence({
      'state-change': ask('state-change', 'stop'),
      platform: ask('platform', 'not-acquired'),
      veto: ask('veto', undefined),
    });
    expect(first).toMatchObject({ row: { family: 'platform' }, hit: 'not-acquired' });
    expect(asked).toEqual(['veto', 'platform']);
    expect(firstByPrecedence({})).toBeUndefined();
  });
});

describe('a verdict carries its family and pattern as fields; the text is for display', () => {
  const extra = compileExtraPatterns('runner went away');
  it.each([
    [
      'a runner-loss annotation',
      failedJob(),
      evidence([ann(TEXT.hosted)]),
      { family: 'runner-loss', pattern: 'hosted-lost', source: 'annotations', evidence: 'pattern hosted-lost' },
    ],
    [
      'a runner-loss line in the log',
      failedJob(),
      evidence([], { log: logErrors(TEXT.shutdown) }),
      {
        family: 'runner-loss',
        pattern: 'shutdown-signal',
        source: 'annotations+logs',
        evidence: 'log pattern shutdown-signal',
      },
    ],
    [
      'a configured pattern, by its whole source',
      failedJob(),
      evidence([ann('the runner went away at 3am')]),
      { family: 'runner-loss', pattern: 'extra:runner went away', evidence: 'pattern extra:runner went away' },
    ],
    [
      'a platform failure',
      failedJob(),
      evidence([ann(NOT_ACQUIRED)]),
      { family: 'platform', pattern: 'not-acquired', source: 'platform', evidence: 'platform not-acquired' },
    ],
    [
      'a platform failure in the log',
      failedJob(),
      evidence([], { log: logErrors(NOT_ACQUIRED) }),
      { family: 'platform', pattern: 'not-acquired', source: 'platform', evidence: 'log platform not-acquired' },
    ],
    [
      'an exact signal',
      failedJob(),
      evidence([], { signals: [signal('spot-interruption')] }),
      { family: 'signal', source: 'signal', lostAt: '2026-10-02T16:13:00Z' },
    ],
    [
      'an exit code',
      failedJob(),
      evidence([ann(TEXT.exitCode(1))]),
      { family: 'exit-code', pattern: 'exit-code', verdict: 'genuine' },
    ],
    [
      'a person cancelled it',
      cancelledJob(),
      evidence([ann(TEXT.person)]),
      { family: 'veto', pattern: 'veto-person', veto: 'person', verdict: 'vetoed' },
    ],
    ['a cancelled job without evidence', cancelledJob(), evidence([]), { family: 'none', verdict: 'inconclusive' }],
  ] as const)('%s', (_, job, ev, expected) => {
    expect(classified(job, ev, extra)).toMatchObject(expected);
  });

  it('no pattern field where no pattern matched', () => {
    expect(classified(failedJob(), evidence([], { signals: [signal('spot-interruption')] }))).not.toHaveProperty(
      'pattern',
    );
    expect(classified(failedJob(), evidence([ann('Error: 3 tests failed')]))).not.toHaveProperty('pattern');
  });

  it('a log GitHub no longer has is a field, not only words', () => {
    const v = classified(failedJob(), evidence([], { log: 'missing' }));
    expect(v).toMatchObject({
      family: 'none',
      logUnavailable: 'missing',
      evidence: 'no annotation evidence; log missing',
    });
    expect(classified(failedJob(), evidence([], { log: 'unreadable' })).logUnavailable).toBe('unreadable');
  });
});
