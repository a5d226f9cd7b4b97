import { describe, expect, it } from 'vitest';
import { summarise } from '../../lib/cli/report-data.js';
import { reportHtml, reportText } from '../../lib/cli/report-render.js';
import type { DecidedAttempt } from '../../lib/records.js';

const T0 = Date.parse('2026-12-03T12:00:00Z');
const decided = (runId: number, decision: DecidedAttempt['decision']): DecidedAttempt => ({
  state: 'decided',
  owner: 'w',
  claimedAt: T0 - 60_000,
  leaseUntil: T0,
  repository: 'acme/queue',
  runId,
  runAttempt: 1,
  installationId: 1,
  decision,
  reason: 'r',
  decidedAt: T0 - 30_000,
  details: { workflow: 'CI', jobs: [{ name: 'test', verdict: 'infra', source: 'annotations' }] },
});
const options = { sinceMs: T0 - 3_600_000, untilMs: T0, pricePerMinute: 0.008, top: 5 };

describe('reprise report: pull requests put back in the merge queue', () => {
  it('counts requeued merge-group runs apart from re-runs, in the text and on the page', () => {
    const facts = {
      decisions: [decided(1, 'requeued'), decided(2, 'requeued'), decided(3, 'retried')],
      outcomes: [],
      signals: [],
    };
    const r = summarise(facts, options);
    expect(r.requeued).toBe(2);
    expect(r.reruns.total).toBe(1);
    expect(r.decisions.byDecision).toContainEqual({ name: 'requeued', count: 2 });
    expect(reportText(r, 'test')).toContain('Pull requests put back in the merge queue: 2');
    expect(reportHtml(r, 'test')).toContain('back in the merge queue');
  });

  it('says nothing about the merge queue where no pull request was put back', () => {
    const r = summarise({ decisions: [decided(4, 'retried')], outcomes: [], signals: [] }, options);
    expect(r.requeued).toBe(0);
    expect(reportText(r, 'test')).not.toContain('merge queue');
  });
});
