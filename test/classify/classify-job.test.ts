import { describe, expect, it } from 'vitest';
import { classifyJob, type Classification, type JobEvidence } from '../../lib/classify/classify-job.js';
import { compileExtraPatterns } from '../../lib/classify/patterns.js';
import type { EvidenceSource, JobFacts, TextPattern, Verdict } from '../../lib/model.js';
import {
  ann,
  cancelledJob,
  evidence,
  failedJob,
  logErrors,
  LOSS_TEXTS,
  signal,
  unavailable,
} from '../support/fixtures.js';
import { TEXT } from '../support/evidence.js';

type Expected =
  | { readonly need_log: true }
  | {
      readonly verdict: Verdict;
      readonly source: EvidenceSource;
      readonly veto?: 'person' | 'concurrency' | 'timeout';
    };

interface Row {
  readonly rule: string;
  readonly job: JobFacts;
  readonly ev: JobEvidence;
  readonly extra?: readonly TextPattern[];
  readonly expected: Expected;
}

function check(c: Classification, expected: Expected, job: JobFacts): void {
  if ('need_log' in expected) {
    expect(c).toEqual({ kind: 'need_log' });
    return;
  }
  expect(c.kind).toBe('verdict');
  if (c.kind !== 'verdict') return;
  expect(c.verdict.job).toBe(job);
  expect({ verdict: c.verdict.verdict, source: c.verdict.source, veto: c.verdict.veto }).toEqual({
    verdict: expected.verdict,
    source: expected.source,
    veto: expected.veto,
  });
  expect(c.verdict.evidence.length).toBeGreaterThan(0);
  expect(c.verdict.evidence.length).toBeLessThanOrEqual(200);
}

const runRows = (rows: readonly Row[]): void => {
  it.each(rows)('$rule', ({ job, ev, extra, expected }) => {
    check(classifyJob(job, ev, extra ?? []), expected, job);
  });
};

const NEED_LOG = { need_log: true } as const;
const infra = (source: EvidenceSource): Expected => ({ verdict: 'infra', source });
const genuine = (source: EvidenceSource): Expected => ({ verdict: 'genuine', source });
const inconclusive = (source: EvidenceSource): Expected => ({ verdict: 'inconclusive', source });
const vetoed = (veto: 'person' | 'concurrency' | 'timeout', source: EvidenceSource = 'annotations'): Expected => ({
  verdict: 'vetoed',
  source,
  veto,
});

/** An agent's `terminated` post: exact. */
const AGENT_TERMINATED = signal('terminated', { source: 'agent' });
/** An EC2 instance state change (`shutting-down`), as the EC2 signal function records it. */
const STATE_CHANGE = signal('terminated', { source: 'aws.ec2', eventTime: '2026-10-02T16:13:00Z' });

describe('infra by an exact signal for the job’s runner', () => {
  runRows([
    {
      rule: 'a spot interruption makes a failed job infra',
      job: failedJob(),
      ev: evidence([], { signals: [signal('spot-interruption')] }),
      expected: infra('signal'),
    },
    {
      rule: 'an agent’s terminated makes a failed job infra',
      job: failedJob(),
      ev: evidence([], { signals: [AGENT_TERMINATED] }),
      expected: infra('signal'),
    },
    {
      rule: 'an EC2 state change after a spot warning for its instance is exact',
      job: failedJob(),
      ev: evidence([], { signals: [signal('spot-interruption', { eventTime: '2026-10-02T16:11:00Z' }), STATE_CHANGE] }),
      expected: infra('signal'),
    },
    {
      rule: 'an EC2 state change after an Auto Scaling termination (external) is exact',
      job: failedJob(),
      ev: evidence([], { signals: [signal('external', { eventTime: '2026-10-02T16:12:00Z' }), STATE_CHANGE] }),
      expected: infra('signal'),
    },
    {
      rule: 'an EC2 state change with no warning before it (a job can shut its runner down): infra with text strength',
      job: failedJob(),
      ev: evidence([], { signals: [STATE_CHANGE] }),
      expected: infra('state-change'),
    },
    {
      rule: 'a spot warning after an EC2 state change: the warning itself is exact',
      job: failedJob(),
      ev: evidence([], { signals: [STATE_CHANGE, signal('spot-interruption', { eventTime: '2026-10-02T16:14:00Z' })] }),
      expected: infra('signal'),
    },
    {
      rule: 'an EC2 state change beside a real failure annotation: genuine',
      job: failedJob(),
      ev: evidence([ann('Error: build broke')], { signals: [STATE_CHANGE] }),
      expected: genuine('annotations'),
    },
    {
      rule: 'an external agent’s report makes a failed job infra',
      job: failedJob(),
      ev: evidence([], { signals: [signal('external')] }),
      expected: infra('signal'),
    },
    {
      rule: 'a spot interruption makes a cancelled job infra',
      job: cancelledJob(),
      ev: evidence([], { signals: [signal('spot-interruption')] }),
      expected: infra('signal'),
    },
    {
      rule: 'a signal settles it even when annotations are unavailable (no log needed)',
      job: failedJob(),
      ev: evidence(unavailable(403), { signals: [AGENT_TERMINATED] }),
      expected: infra('signal'),
    },
    {
      rule: 'a signal beside the cancellation echo is infra',
      job: failedJob(),
      ev: evidence([ann(TEXT.echo)], { signals: [signal('spot-interruption')] }),
      expected: infra('signal'),
    },
    {
      rule: 'a signal beside a loss annotation is recorded as a signal (the stronger evidence)',
      job: failedJob(),
      ev: evidence([ann(TEXT.shutdown)], { signals: [signal('spot-interruption')] }),
      expected: infra('signal'),
    },
    {
      rule: 'a rebalance recommendation alone is not enough: a failed job goes to its log',
      job: failedJob(),
      ev: evidence([], { signals: [signal('rebalance')] }),
      expected: NEED_LOG,
    },
    {
      rule: 'a rebalance recommendation alone is not enough: a cancelled job stays inconclusive',
      job: cancelledJob(),
      ev: evidence([], { signals: [signal('rebalance')] }),
      expected: inconclusive('annotations'),
    },
    {
      rule: 'a rebalance recommendation beside a loss annotation: the annotation decides',
      job: failedJob(),
      ev: evidence([ann(TEXT.selfHostedUnnamed)], { signals: [signal('rebalance')] }),
      expected: infra('annotations'),
    },
  ]);
});

describe('infra by a failure annotation matching a runner-loss pattern', () => {
  describe.each(LOSS_TEXTS)('%s', (_label, text) => {
    runRows([
      { rule: 'on a failed job', job: failedJob(), ev: evidence([ann(text)]), expected: infra('annotations') },
      { rule: 'on a cancelled job', job: cancelledJob(), ev: evidence([ann(text)]), expected: infra('annotations') },
      {
        rule: 'followed by the cancellation echo',
        job: failedJob(),
        ev: evidence([ann(text), ann(TEXT.echo)]),
        expected: infra('annotations'),
      },
      {
        rule: 'with the level spelled FAILURE (GraphQL)',
        job: failedJob(),
        ev: evidence([ann(text, 'FAILURE')]),
        expected: infra('annotations'),
      },
    ]);
  });

  runRows([
    {
      rule: 'the title is matched as well as the message',
      job: failedJob(),
      ev: evidence([ann('see the runner logs', 'failure', TEXT.shutdown)]),
      expected: infra('annotations'),
    },
    {
      rule: 'every annotation is considered: the loss after the echo',
      job: failedJob(),
      ev: evidence([ann(TEXT.echo), ann(TEXT.shutdown)]),
      expected: infra('annotations'),
    },
    {
      rule: 'every annotation is considered: the loss after a warning and a notice',
      job: failedJob(),
      ev: evidence([ann('Node 16 is deprecated', 'warning'), ann('cache hit', 'notice'), ann(TEXT.selfHostedNamed())]),
      expected: infra('annotations'),
    },
    {
      rule: 'a fail-fast text beside a loss does not make the job genuine',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.failFast), ann(TEXT.shutdown)]),
      expected: infra('annotations'),
    },
  ]);
});

describe('only annotation_level == failure counts', () => {
  runRows([
    {
      rule: 'a warning carrying a loss text on a failed job: no evidence, the log is read',
      job: failedJob(),
      ev: evidence([ann(TEXT.shutdown, 'warning')]),
      expected: NEED_LOG,
    },
    {
      rule: 'a notice carrying a loss text on a failed job: no evidence, the log is read',
      job: failedJob(),
      ev: evidence([ann(TEXT.selfHostedUnnamed, 'notice')]),
      expected: NEED_LOG,
    },
    {
      rule: 'a warning carrying a loss text on a cancelled job: inconclusive',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.shutdown, 'warning')]),
      expected: inconclusive('annotations'),
    },
    {
      rule: 'a warning loss text and a clean log: genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.shutdown, 'warning')], { log: logErrors() }),
      expected: genuine('annotations+logs'),
    },
    {
      rule: 'a warning carrying an exit code does not make a lost job genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1), 'warning'), ann(TEXT.shutdown)]),
      expected: infra('annotations'),
    },
    {
      rule: 'a warning carrying a person’s cancellation is no veto',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.person, 'warning'), ann(TEXT.shutdown)]),
      expected: infra('annotations'),
    },
  ]);
});

describe('genuine: failed without infrastructure evidence, or a real failure beside the loss', () => {
  runRows([
    {
      rule: 'a plain non-zero exit is genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1))]),
      expected: genuine('annotations'),
    },
    ...[2, 127, 137, 255].map((code) => ({
      rule: `exit code ${code} is genuine`,
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(code))]),
      expected: genuine('annotations'),
    })),
    {
      rule: 'a failed job with a real failure text and no loss is genuine without reading its log',
      job: failedJob(),
      ev: evidence([ann('Error: 3 tests failed')]),
      expected: genuine('annotations'),
    },
    {
      rule: 'a test failed, then the runner died in an always() step: genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1)), ann(TEXT.selfHostedNamed())]),
      expected: genuine('annotations'),
    },
    {
      rule: 'the runner died after a real failure, loss listed first: still genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.shutdown), ann(TEXT.exitCode(2))]),
      expected: genuine('annotations'),
    },
    {
      rule: 'a real failure text (no exit code) beside the loss: genuine',
      job: failedJob(),
      ev: evidence([ann('Error: assertion failed in widget.spec.ts'), ann(TEXT.shutdown)]),
      expected: genuine('annotations'),
    },
    {
      rule: 'an exact signal does not outweigh a real exit code',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1))], { signals: [signal('spot-interruption')] }),
      expected: genuine('annotations'),
    },
    {
      rule: 'an exact signal does not outweigh a real failure text',
      job: failedJob(),
      ev: evidence([ann('Error: build broke')], { signals: [AGENT_TERMINATED] }),
      expected: genuine('annotations'),
    },
    {
      rule: 'an extra pattern matching an exit code never makes it infra',
      job: failedJob(),
      ev: evidence([ann(TEXT.exitCode(1))]),
      extra: compileExtraPatterns(['exit code']),
      expected: genuine('annotations'),
    },
  ]);
});

describe('inconclusive: cancelled with no evidence', () => {
  runRows([
    {
      rule: 'a plain cancelled job with no annotations: inconclusive, no log',
      job: cancelledJob(),
      ev: evidence([]),
      expected: inconclusive('annotations'),
    },
    {
      rule: 'a fail-fast sibling (fail-fast text and the echo): inconclusive, no log',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.failFast), ann(TEXT.echo)]),
      expected: inconclusive('annotations'),
    },
    {
      rule: 'a cancelled job with a non-matching failure text: inconclusive, no log',
      job: cancelledJob(),
      ev: evidence([ann('Error: something odd')]),
      expected: inconclusive('annotations'),
    },
    {
      rule: 'a cancelled job with unavailable annotations does not escalate to its log',
      job: cancelledJob(),
      ev: evidence(unavailable(403)),
      expected: inconclusive('unreadable'),
    },
  ]);
});

describe('vetoed: a person, concurrency or a timeout', () => {
  runRows([
    {
      rule: 'a person cancelled the run',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.person)]),
      expected: vetoed('person'),
    },
    {
      rule: 'concurrency superseded the run',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.concurrency)]),
      expected: vetoed('concurrency'),
    },
    {
      rule: 'the job exceeded its maximum execution time',
      job: failedJob(),
      ev: evidence([ann(TEXT.timeoutJob)]),
      expected: vetoed('timeout'),
    },
    {
      rule: 'the job on a runner exceeded its maximum execution time',
      job: failedJob(),
      ev: evidence([ann(TEXT.timeoutRunner)]),
      expected: vetoed('timeout'),
    },
    {
      rule: 'a veto beside a loss annotation is still a veto (infra needs no veto)',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.shutdown), ann(TEXT.person)]),
      expected: vetoed('person'),
    },
    {
      rule: 'a veto beside an exact signal is still a veto',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.concurrency)], { signals: [signal('spot-interruption')] }),
      expected: vetoed('concurrency'),
    },
    {
      rule: 'a veto in the title is a veto',
      job: cancelledJob(),
      ev: evidence([ann('cancelled', 'failure', TEXT.person)]),
      expected: vetoed('person'),
    },
    {
      rule: 'an extra pattern matching a timeout never makes it infra',
      job: failedJob(),
      ev: evidence([ann(TEXT.timeoutJob)]),
      extra: compileExtraPatterns(['maximum execution time']),
      expected: vetoed('timeout'),
    },
  ]);
});

describe('log fallback: when the job is sent to its log, and what the log decides', () => {
  describe.each([403, 404, 410] as const)('annotations unavailable (%i)', (status) => {
    runRows([
      {
        rule: 'a failed job is sent to its log',
        job: failedJob(),
        ev: evidence(unavailable(status)),
        expected: NEED_LOG,
      },
      {
        rule: 'a shutdown line in the log: infra from logs',
        job: failedJob(),
        ev: evidence(unavailable(status), { log: logErrors(TEXT.shutdown, TEXT.echo) }),
        expected: infra('logs'),
      },
      {
        rule: 'an exit code in the log: genuine from logs',
        job: failedJob(),
        ev: evidence(unavailable(status), { log: logErrors(TEXT.exitCode(1)) }),
        expected: genuine('logs'),
      },
      {
        rule: 'log unreadable too: genuine, source unreadable',
        job: failedJob(),
        ev: evidence(unavailable(status), { log: 'unreadable' }),
        expected: genuine('unreadable'),
      },
      {
        rule: 'no log either (404): genuine, nothing was read',
        job: failedJob(),
        ev: evidence(unavailable(status), { log: 'missing' }),
        expected: genuine('unreadable'),
      },
    ]);
  });

  runRows([
    {
      rule: 'a failed job whose annotations match nothing (none at all) is sent to its log',
      job: failedJob(),
      ev: evidence([]),
      expected: NEED_LOG,
    },
    {
      rule: 'a failed job whose only failure annotation is the echo is sent to its log',
      job: failedJob(),
      ev: evidence([ann(TEXT.echo)]),
      expected: NEED_LOG,
    },
    {
      rule: 'a failed job with only a fail-fast text is sent to its log',
      job: failedJob(),
      ev: evidence([ann(TEXT.failFast)]),
      expected: NEED_LOG,
    },
    {
      rule: 'a cancelled job whose only annotation is the echo is sent to its log',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo)]),
      expected: NEED_LOG,
    },
    {
      rule: 'a cancelled job with the echo twice is sent to its log',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo), ann(TEXT.echo)]),
      expected: NEED_LOG,
    },
    {
      rule: 'the spot-loss log (shutdown, echo) after an echo-only annotation: infra from annotations+logs',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo)], { log: logErrors(TEXT.shutdown, TEXT.echo) }),
      expected: infra('annotations+logs'),
    },
    {
      rule: 'a lost-communication line in the log of a failed job: infra',
      job: failedJob(),
      ev: evidence([], { log: logErrors(TEXT.selfHostedEmptyName) }),
      expected: infra('annotations+logs'),
    },
    {
      rule: 'an echo-only log after an echo-only annotation: cancelled stays inconclusive',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo)], { log: logErrors(TEXT.echo) }),
      expected: inconclusive('annotations+logs'),
    },
    {
      rule: 'an empty log of a failed job: genuine',
      job: failedJob(),
      ev: evidence([], { log: logErrors() }),
      expected: genuine('annotations+logs'),
    },
    {
      rule: 'a real failure beside the loss in the log: genuine',
      job: failedJob(),
      ev: evidence([], { log: logErrors('Error: tests failed', TEXT.shutdown) }),
      expected: genuine('annotations+logs'),
    },
    {
      rule: 'an exit code beside the loss in the log: genuine',
      job: failedJob(),
      ev: evidence([ann(TEXT.echo)], { log: logErrors(TEXT.shutdown, TEXT.exitCode(143)) }),
      expected: genuine('annotations+logs'),
    },
    {
      rule: 'a timeout in the log: vetoed',
      job: failedJob(),
      ev: evidence([], { log: logErrors(TEXT.timeoutJob) }),
      expected: vetoed('timeout', 'annotations+logs'),
    },
    {
      rule: 'a person’s cancellation in the log: vetoed',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo)], { log: logErrors(TEXT.person) }),
      expected: vetoed('person', 'annotations+logs'),
    },
    {
      rule: 'a missing log (404) is no evidence: genuine for a failed job',
      job: failedJob(),
      ev: evidence([], { log: 'missing' }),
      expected: genuine('annotations+logs'),
    },
    {
      rule: 'a missing log (404) is no evidence: inconclusive for a cancelled job',
      job: cancelledJob(),
      ev: evidence([ann(TEXT.echo)], { log: 'missing' }),
      expected: inconclusive('annotations+logs'),
    },
    {
      rule: 'an unreadable log of a failed job with readable annotations: genuine',
      job: failedJob(),
      ev: evidence([], { log: 'unreadable' }),
      expected: genuine('annotations+logs'),
    },
  ]);

  it('a plain cancelled job is settled without asking for its log (no escalation)', () => {
    const c = classifyJob(cancelledJob(), evidence([ann(TEXT.failFast)]), []);
    expect(c.kind).toBe('verdict');
    expect(c.kind === 'verdict' && c.verdict.source).toBe('annotations');
  });

  it('the two-step protocol: need_log, then the same evidence with the log settles it', () => {
    const j = failedJob();
    const ev = evidence([ann(TEXT.echo)]);
    expect(classifyJob(j, ev, [])).toEqual({ kind: 'need_log' });
    const c = classifyJob(j, { ...ev, log: logErrors(TEXT.shutdown, TEXT.echo) }, []);
    check(c, infra('annotations+logs'), j);
  });
});

describe('extra patterns from configuration', () => {
  const extra = compileExtraPatterns('# Karpenter drains\nnode .* was drained\npod .* evicted');
  const custom = 'Runner pod arc-7x9 evicted: node ip-10-0-1-2 was drained';

  runRows([
    {
      rule: 'a custom failure text is infra with the extra pattern',
      job: failedJob(),
      ev: evidence([ann(custom)]),
      extra,
      expected: infra('annotations'),
    },
    {
      rule: 'the same text without the extra pattern is genuine',
      job: failedJob(),
      ev: evidence([ann(custom)]),
      expected: genuine('annotations'),
    },
    {
      rule: 'a custom text in the log is infra with the extra pattern',
      job: failedJob(),
      ev: evidence(unavailable(404), { log: logErrors(custom.toUpperCase()) }),
      extra,
      expected: infra('logs'),
    },
    {
      rule: 'a custom text on a cancelled job is infra with the extra pattern',
      job: cancelledJob(),
      ev: evidence([ann(custom)]),
      extra,
      expected: infra('annotations'),
    },
  ]);

  it('the evidence names the matching extra pattern', () => {
    const c = classifyJob(failedJob(), evidence([ann(custom)]), extra);
    expect(c.kind === 'verdict' && c.verdict.evidence).toContain('extra:');
  });
});

describe('every verdict records its source', () => {
  it.each([
    ['signal', failedJob(), evidence([], { signals: [signal('spot-interruption')] })],
    ['annotations', failedJob(), evidence([ann(TEXT.shutdown)])],
    ['logs', failedJob(), evidence(unavailable(410), { log: logErrors(TEXT.shutdown) })],
    ['annotations+logs', failedJob(), evidence([], { log: logErrors(TEXT.shutdown) })],
    ['unreadable', failedJob(), evidence(unavailable(403), { log: 'unreadable' })],
  ] as const)('%s', (source, j, ev) => {
    const c = classifyJob(j, ev, []);
    expect(c.kind === 'verdict' && c.verdict.source).toBe(source);
  });
});

describe('the echo is recognised by its message whatever the title', () => {
  // Issue 3, Evidence: "match title and message" and "read the job log ... when the only failure
  // annotation is `The operation was canceled.`". The classifier joins title and message into one
  // text before the anchored echo test, so an echo annotation with a non-empty title counts as a
  // real failure: a failed job becomes genuine without its log, a cancelled job inconclusive.
  it('a failed job whose only failure annotation is the echo (with a title) is sent to its log', () => {
    const c = classifyJob(failedJob(), evidence([ann(TEXT.echo, 'failure', 'build (ubuntu-latest)')]), []);
    expect(c).toEqual({ kind: 'need_log' });
  });

  it('a cancelled job whose only annotation is the echo (with a title) is sent to its log', () => {
    const c = classifyJob(cancelledJob(), evidence([ann(TEXT.echo, 'failure', 'build (ubuntu-latest)')]), []);
    expect(c).toEqual({ kind: 'need_log' });
  });

  it('an echo annotation with an empty title is the echo', () => {
    expect(classifyJob(failedJob(), evidence([ann(TEXT.echo, 'failure', '')]), [])).toEqual({ kind: 'need_log' });
  });
});
