import { describe, expect, it } from 'vitest';
import {
  decisionEvent,
  lostJobEvidence,
  lostJobPatterns,
  NO_EVENTS,
  outcomeEvent,
  publishQuietly,
} from '../../lib/events/build.js';
import type { RepriseEvent } from '../../lib/events/types.js';
import type { DecisionKind } from '../../lib/model.js';
import { MemoryLog } from '../support/memory-log.js';
import { failedJob, jobVerdict, runMessage } from '../support/fixtures.js';
import { shapeErrors } from './schema.js';

describe('a merge-group run put back in the queue', () => {
  it('is a requeued decision of the documented shape: no re-run, no next attempt, not a final failure', () => {
    const msg = {
      v: 1 as const,
      deliveryId: 'd-1',
      installationId: 4242,
      repository: { id: 1, owner: 'acme', name: 'queue' },
      runId: 9,
      runAttempt: 1,
      workflow: { id: 3, name: 'CI', path: '.github/workflows/ci.yml' },
      event: 'merge_group',
      headSha: 'a'.repeat(40),
      headBranch: `gh-readonly-queue/main/pr-4-${'b'.repeat(40)}`,
      conclusion: 'failure' as const,
      pullRequests: [],
    };
    const event = decisionEvent(msg, { decision: 'requeued', reason: 'pull request #4 queued again', verdicts: [] }, 0);
    expect(shapeErrors(event)).toBe('');
    expect(event).toMatchObject({ decision: 'requeued', rerun: false, next_attempt: null, final_failure: false });
  });
});

describe('decisionEvent', () => {
  const lost = jobVerdict(failedJob({ name: 'test' }), 'infra', 'signal');
  const lostByText = jobVerdict(failedJob({ name: 'lint' }), 'infra', 'annotations');
  const lostAgainByText = jobVerdict(failedJob({ name: 'docs' }), 'infra', 'annotations');
  const red = jobVerdict(failedJob({ name: 'unit' }), 'genuine', 'annotations');

  it('a re-run names the next attempt and the lost jobs, each evidence family once, and is no final failure', () => {
    const event = decisionEvent(
      runMessage({ runAttempt: 2 }),
      { decision: 'retried', reason: 'lost', verdicts: [lost, lostByText, lostAgainByText, red] },
      Date.UTC(2026, 11, 3, 7),
    );
    expect(shapeErrors(event)).toBe('');
    expect(event).toMatchObject({
      kind: 'decision',
      time: '2026-12-03T07:00:00.000Z',
      installation_id: 42,
      repository: 'acme/widgets',
      run_attempt: 2,
      workflow_name: 'CI',
      rerun: true,
      next_attempt: 3,
      lost_jobs: ['test', 'lint', 'docs'],
      lost_job_evidence: ['signal', 'annotations'],
      final_failure: false,
    });
  });

  it('a workflow without a name is null, not an empty string', () => {
    const msg = runMessage({ workflow: { id: 1, name: '', path: '.github/workflows/x.yml' } });
    expect(decisionEvent(msg, { decision: 'ignored', reason: 'off', verdicts: [] }, 0).workflow_name).toBeNull();
  });

  // Every decision kind (the Record keeps the list whole), true when the run stays red for good.
  const FINAL: Record<DecisionKind, boolean> = {
    ignored: false,
    run_incomplete: false,
    stale: false,
    attempt_cap: true,
    budget_exhausted: true,
    no_candidate_jobs: false,
    vetoed: true,
    genuine_failure: true,
    no_infra_evidence: true,
    dry_run: false,
    retried: false,
    retried_all: false,
    rerun_rejected: true,
    requeued: false,
    duplicate: false,
    expired: true,
    abandoned: true,
    paused: false,
  };
  it.each(Object.entries(FINAL) as [DecisionKind, boolean][])(
    '%s: final_failure is %s, of the documented shape',
    (decision, final) => {
      const event = decisionEvent(runMessage(), { decision, reason: 'why', verdicts: [red] }, 0);
      expect(event.final_failure).toBe(final);
      expect(event.rerun && event.final_failure).toBe(false);
      expect(shapeErrors(event)).toBe('');
    },
  );
});

describe('lostJobEvidence', () => {
  it('lists the sources of infra verdicts only, in first-seen order, each once', () => {
    const verdicts = [
      jobVerdict(failedJob(), 'genuine', 'logs'),
      jobVerdict(failedJob(), 'infra', 'platform'),
      jobVerdict(failedJob(), 'infra', 'signal'),
      jobVerdict(failedJob(), 'infra', 'platform'),
    ];
    expect(lostJobEvidence(verdicts)).toEqual(['platform', 'signal']);
    expect(lostJobEvidence([])).toEqual([]);
  });
});

describe('lostJobPatterns', () => {
  it("names the patterns of infra verdicts from their `pattern` field, each once, never from the evidence's text", () => {
    const verdicts = [
      jobVerdict(failedJob(), 'infra', 'annotations', { family: 'runner-loss', pattern: 'self-hosted-lost' }),
      jobVerdict(failedJob(), 'infra', 'platform', { family: 'platform', pattern: 'not-acquired' }),
      jobVerdict(failedJob(), 'infra', 'logs', { family: 'runner-loss', pattern: 'self-hosted-lost' }),
      jobVerdict(failedJob(), 'genuine', 'annotations', { family: 'exit-code', pattern: 'exit-code' }),
      // The text says "pattern …", the field says nothing: no pattern is named.
      jobVerdict(failedJob(), 'infra', 'annotations', { evidence: 'pattern hosted-lost' }),
    ];
    expect(lostJobPatterns(verdicts)).toEqual(['self-hosted-lost', 'not-acquired']);
  });

  it('a decision event names them, of the documented shape; without patterns (a verdict an older version kept) the field is absent and the rest unchanged', () => {
    const byPattern = jobVerdict(failedJob({ name: 'lint' }), 'infra', 'annotations', {
      family: 'runner-loss',
      pattern: 'shutdown-signal',
    });
    const withPatterns = decisionEvent(runMessage(), { decision: 'retried', reason: 'lost', verdicts: [byPattern] }, 0);
    expect(shapeErrors(withPatterns)).toBe('');
    expect(withPatterns.lost_job_patterns).toEqual(['shutdown-signal']);
    const { family: _f, pattern: _p, ...older } = byPattern;
    const withoutPatterns = decisionEvent(runMessage(), { decision: 'retried', reason: 'lost', verdicts: [older] }, 0);
    expect(shapeErrors(withoutPatterns)).toBe('');
    expect(withoutPatterns).not.toHaveProperty('lost_job_patterns');
    const { lost_job_patterns: _l, ...rest } = withPatterns;
    expect(withoutPatterns).toEqual(rest);
  });
});

describe('outcomeEvent', () => {
  it('carries the attempt it judges and the outcome, of the documented shape', () => {
    const ref = { installationId: null, repoId: 7, repository: 'acme/widgets', runId: 5, runAttempt: 2 };
    const event = outcomeEvent(ref, 'lost_again', 1000);
    expect(event).toEqual({
      version: 1,
      kind: 'rerun_outcome',
      time: '1970-01-01T00:00:01.000Z',
      installation_id: null,
      repository: 'acme/widgets',
      run_id: 5,
      run_attempt: 2,
      outcome: 'lost_again',
    });
    expect(shapeErrors(event)).toBe('');
  });
});

describe('publishQuietly', () => {
  const event = outcomeEvent(
    { installationId: 1, repoId: 7, repository: 'acme/widgets', runId: 5, runAttempt: 2 },
    'recovered',
    0,
  );

  it('publishes the event to the publisher given', async () => {
    const sent: RepriseEvent[] = [];
    const log = new MemoryLog();
    await publishQuietly({ publish: async (e) => void sent.push(e) }, event, log, {});
    expect(sent).toEqual([event]);
    expect(log.lines).toEqual([]);
  });

  it("a refused publish resolves and is logged as a warning with the caller's line and the error", async () => {
    const log = new MemoryLog();
    const refusing = {
      publish: async () => {
        throw new Error('bus gone');
      },
    };
    await expect(publishQuietly(refusing, event, log, { run_id: 5 })).resolves.toBeUndefined();
    expect(log.lines).toEqual([
      { level: 'warn', message: 'could not publish the rerun_outcome event', run_id: 5, error: 'bus gone' },
    ]);
  });

  it('no publisher, or NO_EVENTS, is quiet: nothing logged', async () => {
    const log = new MemoryLog();
    await publishQuietly(undefined, event, log, {});
    await publishQuietly(NO_EVENTS, event, log, {});
    expect(log.lines).toEqual([]);
  });
});
