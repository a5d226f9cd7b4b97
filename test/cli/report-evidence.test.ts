import { describe, expect, it } from 'vitest';
import { summarise } from '../../lib/cli/report-data.js';
import { reportText } from '../../lib/cli/report-render.js';
import type { DecidedAttempt } from '../../lib/records.js';

const T0 = Date.parse('2026-10-09T12:00:00Z');

/** A decided attempt whose details list its jobs as the worker records them: name, verdict, source. */
const decided = (runId: number, jobs: { verdict: string; source: string }[]): DecidedAttempt => ({
  state: 'decided',
  owner: 'worker-1',
  claimedAt: T0 - 60_000,
  leaseUntil: T0,
  repository: 'acme/web',
  runId,
  runAttempt: 1,
  installationId: 42,
  decision: 'retried',
  reason: 'lost',
  decidedAt: T0 - 30_000,
  details: { workflow: 'CI', jobs: jobs.map((j, i) => ({ name: `job-${i}`, ...j })) },
});

describe('reprise report counts the lost jobs by the evidence that judged them lost', () => {
  const facts = {
    decisions: [
      decided(1, [{ verdict: 'infra', source: 'platform' }]),
      decided(2, [
        { verdict: 'infra', source: 'platform' },
        { verdict: 'infra', source: 'annotations' },
      ]),
      decided(3, [
        { verdict: 'infra', source: 'signal' },
        { verdict: 'genuine', source: 'annotations' },
      ]),
    ],
    outcomes: [],
    signals: [],
  };
  const r = summarise(facts, { sinceMs: T0 - 3_600_000, untilMs: T0, pricePerMinute: 0.008, top: 10 });

  it('GitHub’s platform failures are counted apart from runner losses; genuine jobs not at all', () => {
    expect(r.lostByEvidence).toEqual([
      { name: 'platform', count: 2 },
      { name: 'annotations', count: 1 },
      { name: 'signal', count: 1 },
    ]);
    expect(r.lost.jobs).toBe(4);
  });

  it('the text report prints the breakdown under the minutes lost', () => {
    expect(reportText(r, 'table t')).toContain('Lost jobs by evidence: platform 2, annotations 1, signal 1');
  });
});
