/**
 * A time budget per decision: classification reads bounded text and stops when its budget is
 * spent, answering inconclusive (which leaves the run alone) instead of holding the worker.
 * The clock is injected: each pattern run advances it, so nothing here races real time.
 */
import { describe, expect, it } from 'vitest';
import { classifyJob } from '../../lib/classify/classify-job.js';
import { SCAN_LIMITS, ScanBudget, type ScanLimits } from '../../lib/classify/scan-budget.js';
import { decide } from '../../lib/decide/decide.js';
import { heldClock } from '../../lib/util/held-clock.js';
import { TEXT } from '../support/evidence.js';
import {
  ann,
  cancelledJob,
  config,
  evidence,
  failedJob,
  logErrors,
  runFacts,
  runMessage,
} from '../support/fixtures.js';

/** A clock that moves `stepMs` each time it is read, and counts the reads. */
function fakeClock(stepMs: number): { now: () => number; reads: () => number } {
  let t = 0;
  let reads = 0;
  return {
    now: () => {
      reads++;
      return (t += stepMs);
    },
    reads: () => reads,
  };
}

const limits = (over: Partial<ScanLimits>): ScanLimits => ({ ...SCAN_LIMITS, ...over });

describe('a time budget per decision', () => {
  it('evidence read within the budget classifies as usual', () => {
    const clock = fakeClock(0.01);
    const c = classifyJob(failedJob(), evidence([ann(TEXT.shutdown)]), [], new ScanBudget(SCAN_LIMITS, clock.now));
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra' } });
    expect(clock.reads()).toBeGreaterThan(1);
  });

  it('a job whose matching passes the window budget is inconclusive, cut short, with the reason', () => {
    const clock = fakeClock(1);
    const budget = new ScanBudget(limits({ windowMs: 5 }), clock.now);
    const texts = Array.from({ length: 50 }, (_, i) => `step ${i} said something`);
    const c = classifyJob(failedJob(), evidence([], { log: logErrors(...texts, TEXT.shutdown) }), [], budget);
    expect(c).toMatchObject({
      kind: 'verdict',
      verdict: { verdict: 'inconclusive', cutShort: true, source: 'annotations+logs' },
    });
    if (c.kind === 'verdict') expect(c.verdict.evidence).toMatch(/not read to the end: .*5 ms budget/);
  });

  it('the decision budget is shared: once spent, the next job is cut short at its first pattern', () => {
    const clock = fakeClock(1);
    const budget = new ScanBudget(limits({ windowMs: 1000, decisionMs: 20 }), clock.now);
    const many = Array.from({ length: 10 }, (_, i) => ann(`test ${i} failed`));
    classifyJob(failedJob({ id: 1 }), evidence(many), [], budget);
    expect(budget.spent).toBeGreaterThan(20);
    const before = clock.reads();
    const next = classifyJob(failedJob({ id: 2 }), evidence([ann(TEXT.shutdown)]), [], budget);
    expect(next).toMatchObject({ kind: 'verdict', verdict: { verdict: 'inconclusive', cutShort: true } });
    expect(clock.reads() - before).toBeLessThanOrEqual(2);
  });

  it('a log window with more error lines than are examined is cut short, not half-read into a re-run', () => {
    const lines = Array.from({ length: SCAN_LIMITS.textsPerWindow + 1 }, () => TEXT.shutdown);
    const c = classifyJob(cancelledJob(), evidence([ann(TEXT.echo)], { log: logErrors(...lines) }), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'inconclusive', cutShort: true } });
    if (c.kind === 'verdict') expect(c.verdict.evidence).toContain(`more than the ${SCAN_LIMITS.textsPerWindow}`);
  });

  it('patterns read the head of a long text only: a loss sentence past the limit is not seen', () => {
    const padded = `${'x'.repeat(SCAN_LIMITS.textChars)} ${TEXT.shutdown}`;
    const c = classifyJob(failedJob(), evidence([ann(padded)]), []);
    expect(c).toMatchObject({ kind: 'verdict', verdict: { verdict: 'genuine' } });
    const head = classifyJob(failedJob(), evidence([ann(`${TEXT.shutdown} ${'x'.repeat(1_000_000)}`)]), []);
    expect(head).toMatchObject({ kind: 'verdict', verdict: { verdict: 'infra' } });
  });

  it('a run with a job cut short ends no_infra_evidence with the reason: the run is left alone', () => {
    const clock = fakeClock(1);
    const job = failedJob();
    const c = classifyJob(
      job,
      evidence([ann(TEXT.shutdown), ann('one'), ann('two')]),
      [],
      new ScanBudget(limits({ windowMs: 2 }), clock.now),
    );
    if (c.kind !== 'verdict') throw new Error('expected a verdict');
    const step = decide({
      message: runMessage(),
      config: config(),
      run: runFacts(),
      stale: {},
      budget: { limit: 0, used: 0 },
      jobs: [job],
      verdicts: [c.verdict],
    });
    expect(step).toMatchObject({ kind: 'final', decision: 'no_infra_evidence' });
    if (step.kind === 'final') expect(step.reason).toMatch(/not read to the end.*left alone/);
  });
});

describe('the budget counts the process’s CPU time, not the wall clock', () => {
  /** Holds the thread for `ms` of wall time without using the CPU, as a descheduled process would. */
  const stall = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

  it('a machine that stalls this process for longer than the window does not cut the classification short', () => {
    const meter = new ScanBudget(limits({ windowMs: 50 }), heldClock()).window();
    stall(150);
    expect(() => meter.check()).not.toThrow();
  });

  it('control: on the wall clock the same stall passes the window', () => {
    const meter = new ScanBudget(limits({ windowMs: 50 }), () => performance.now()).window();
    stall(150);
    expect(() => meter.check()).toThrow(/50 ms budget/);
  });

  it('work on the CPU still counts', () => {
    const meter = new ScanBudget(limits({ windowMs: 50 }), heldClock()).window();
    // 80 ms of this process's CPU, however long a loaded machine takes to give it that much.
    const start = process.cpuUsage();
    const cpuMs = () => {
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    while (cpuMs() < 80) Math.sqrt(Math.random());
    expect(() => meter.check()).toThrow(/50 ms budget/);
  });
});
