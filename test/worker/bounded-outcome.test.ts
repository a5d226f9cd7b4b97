import { describe, expect, it } from 'vitest';
import { TEXT_CAPS } from '../../lib/util/clip.js';
import { boundedOutcome } from '../../lib/worker/bounded-outcome.js';
import { failedJob, jobVerdict } from '../support/fixtures.js';

const long = (n: number, c = 'x') => c.repeat(n);

describe('a decision cut to its text caps before it is logged, reported or stored', () => {
  it('cuts the reason, each evidence, job, runner and runner-group name to its cap, with a note of what was cut', () => {
    const job = failedJob({
      name: long(TEXT_CAPS.name + 50, 'n'),
      runnerName: long(TEXT_CAPS.name + 1, 'r'),
      runnerGroupName: long(TEXT_CAPS.name * 2, 'g'),
    });
    const out = boundedOutcome({
      decision: 'retried',
      reason: long(TEXT_CAPS.reason * 2),
      requests: 3,
      verdicts: [jobVerdict(job, 'infra', 'annotations', { evidence: long(TEXT_CAPS.error + 10, 'e') })],
    });
    expect(out.reason.length).toBeLessThanOrEqual(TEXT_CAPS.reason);
    expect(out.reason).toMatch(/… \(\d+ more characters\)$/);
    const [v] = out.verdicts;
    expect(v!.evidence.length).toBeLessThanOrEqual(TEXT_CAPS.error);
    expect(v!.job.name.length).toBeLessThanOrEqual(TEXT_CAPS.name);
    expect(v!.job.runnerName!.length).toBeLessThanOrEqual(TEXT_CAPS.name);
    expect(String(v!.job.runnerGroupName).length).toBeLessThanOrEqual(TEXT_CAPS.name);
    // Everything else passes as it was.
    expect(out).toMatchObject({ decision: 'retried', requests: 3 });
    expect(v).toMatchObject({ verdict: 'infra', source: 'annotations', job: { id: job.id, conclusion: 'failure' } });
  });

  it('leaves texts within their caps as they are, a runner without a name null, and adds no runner group', () => {
    const job = failedJob({ name: 'build', runnerName: null });
    const o = { reason: 'runner lost', verdicts: [jobVerdict(job, 'infra')] };
    const out = boundedOutcome(o);
    expect(out).toEqual(o);
    expect('runnerGroupName' in out.verdicts[0]!.job).toBe(false);
  });
});
