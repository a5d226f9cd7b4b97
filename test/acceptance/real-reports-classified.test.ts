/**
 * Real reports as the oracle: every job failure message of the corpus (test/fixtures/real-reports)
 * through the classifier, as GitHub delivers it (annotations, or `##[error]` lines of the log).
 * Infrastructure must be re-run (recall 100 %), genuine failures and deliberate cancellations
 * never (precision 100 %); ambiguous entries are documented and not scored.
 */
import { describe, expect, it } from 'vitest';
import { classifyJob, type JobEvidence } from '../../lib/classify/classify-job.js';
import type { JobFacts, JobVerdict } from '../../lib/model.js';
import { AMBIGUOUS, ECHO, mustRerun, type Report, REPORTS, rowName, SCORED } from '../fixtures/real-reports/corpus.js';
import { ann, cancelledJob, failedJob, logErrors } from '../support/fixtures.js';

function jobOf(r: Report): JobFacts {
  return r.conclusion === 'cancelled' ? cancelledJob({ name: r.id }) : failedJob({ name: r.id });
}

/**
 * The evidence GitHub gives for the report. An annotation report's log holds no `##[error]`
 * line of its own; a log report's job has no failure annotation, but a cancelled one carries
 * the cancellation echo, behind which reprise opens a cancelled job's log.
 */
function evidenceOf(r: Report): { first: JobEvidence; withLog: JobEvidence } {
  const annotations =
    r.where === 'annotation'
      ? [...(r.warnings ?? []).map((w) => ann(w, 'warning')), ...r.messages.map((m) => ann(m))]
      : r.conclusion === 'cancelled'
        ? [ann(ECHO)]
        : [];
  const first: JobEvidence = { signals: [], annotations };
  const log = logErrors(...(r.where === 'log' ? r.messages : []));
  return { first, withLog: { ...first, log } };
}

/** The classifier as the worker drives it: annotations first, the log when it asks for it. */
function classifyReport(r: Report): JobVerdict {
  const job = jobOf(r);
  const { first, withLog } = evidenceOf(r);
  const c = classifyJob(job, first, []);
  const done = c.kind === 'verdict' ? c : classifyJob(job, withLog, []);
  if (done.kind !== 'verdict') throw new Error(`${r.id}: the classifier asked for the log twice`);
  return done.verdict;
}

const reruns = (v: JobVerdict): boolean => v.verdict === 'infra';

describe('the corpus of real reports holds what the issue asks for', () => {
  it('at least 60 messages, each quoted verbatim with its address, conclusion, place and label', () => {
    expect(REPORTS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(REPORTS.map((r) => r.id)).size).toBe(REPORTS.length);
  });

  it.each([
    ['runner loss (self-hosted, named, unnamed, empty name)', 'runner-loss'],
    ['hosted runner loss', 'hosted-loss'],
    ['runner shutdown', 'shutdown'],
    ["GitHub's platform failures", 'platform'],
    ['exit codes', 'exit-code'],
    ['timeouts', 'timeout'],
    ['disk full', 'disk-full'],
    ['network errors inside a step', 'network'],
    ['deprecated runner versions', 'deprecated-runner'],
    ['"no runners online" auto-failures', 'no-runners'],
    ['concurrency cancellations', 'concurrency'],
    ['test output that merely says "lost"', 'test-output'],
    ['the cancellation echo alone', 'echo-only'],
    ["the container hook's text beside the job's own failure", 'container-hook'],
    ['jobs GitHub did not start for a billing lock or a spending limit', 'billing'],
    ['actions that are not there, not allowed, or not reachable from the job’s own network', 'action-setup'],
  ])('covers %s', (_what, family) => {
    expect(REPORTS.some((r) => r.family === family)).toBe(true);
  });

  it.each([
    ['a job no runner acquired after GitHub’s retries', /not acquired by Runner/],
    ['an internal error while running the job', /internal error when running your job/i],
    ['an internal error with only a correlation id', /^Internal server error\. Correlation ID: /],
    ['a disconnect reported as "an error while running your job"', /error while running your job\. \(Error Type/],
    ['a hosted runner that could not be provisioned', /error occurred while provisioning resources/],
    ['a runner deprovisioned under a running job', /Received request to deprovision/],
    ['a provision message that could not be sent', /failure in sending the provision message/],
    ['actions GitHub could not resolve (Set up job)', /^Failed to resolve action download info\.$/],
    [
      'an action download GitHub answered with a server error',
      /^Response status code does not indicate success: 5\d\d /,
    ],
  ])('covers GitHub’s platform failure: %s', (_what, text) => {
    expect(REPORTS.some((r) => r.label === 'infra' && r.messages.some((m) => text.test(m)))).toBe(true);
  });

  it('covers a cancelled job whose runner loss is only in its log, behind the cancellation echo', () => {
    expect(
      REPORTS.some(
        (r) => r.label === 'infra' && r.conclusion === 'cancelled' && r.where === 'log' && r.family === 'shutdown',
      ),
    ).toBe(true);
  });
});

describe('every scored report through the classifier', () => {
  it.each(SCORED.map((r) => [rowName(r), r] as const))('%s', (_name, r) => {
    const v = classifyReport(r);
    expect({ rerun: reruns(v), verdict: v.verdict, evidence: v.evidence }).toMatchObject({ rerun: mustRerun(r) });
  });

  it('GitHub’s platform failures are judged by their own evidence source, `platform`', () => {
    const platform = SCORED.filter((r) => r.family === 'platform');
    expect(platform.length).toBeGreaterThan(0);
    for (const r of platform) expect(classifyReport(r).source, r.id).toBe('platform');
  });

  it('infrastructure recall 100 %, genuine and cancelled precision 100 % on the scored reports', () => {
    const infra = SCORED.filter(mustRerun);
    const leave = SCORED.filter((r) => !mustRerun(r));
    const caught = infra.filter((r) => reruns(classifyReport(r)));
    const leftAlone = leave.filter((r) => !reruns(classifyReport(r)));
    const recall = caught.length / infra.length;
    const precision = leftAlone.length / leave.length;
    const count = (label: string) => REPORTS.filter((r) => r.label === label).length;
    console.log(
      `[real reports] ${REPORTS.length} messages: infra ${count('infra')}, genuine ${count('genuine')}, ` +
        `cancelled ${count('cancelled')}, ambiguous ${count('ambiguous')} (not scored); ` +
        `infrastructure recall ${(recall * 100).toFixed(0)} %, genuine/cancelled precision ${(precision * 100).toFixed(0)} %`,
    );
    expect(recall).toBe(1);
    expect(precision).toBe(1);
  });
});

describe('ambiguous reports are documented, not scored', () => {
  it.each(AMBIGUOUS.map((r) => [rowName(r), r] as const))('%s says why and is classified without error', (_n, r) => {
    expect(r.why?.length).toBeGreaterThan(20);
    expect(['infra', 'genuine', 'inconclusive', 'vetoed']).toContain(classifyReport(r).verdict);
  });
});
