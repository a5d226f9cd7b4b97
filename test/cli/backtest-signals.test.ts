import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.js';
import { appEnv, type Harness, startHarness, TABLE } from '../support/harness.js';
import { captureIo } from './support.js';

interface JsonReport {
  signals: string;
  attempts: { runId: number; class: string; judgement: { decision: string; jobs: { source: string | null }[] } }[];
  summary: { evidence: { name: string; count: number }[] };
}

describe('reprise backtest with --table', () => {
  let h: Harness;
  let runId: number;

  beforeAll(async () => {
    h = await startHarness();
    const completedAt = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const startedAt = new Date(Date.parse(completedAt) - 9 * 60_000).toISOString();
    // Cancelled on a spot runner with no annotation: only the exact signal says what happened.
    runId = h.sim.addRunHistory({
      repo: 'acme/signals',
      attempts: [
        {
          jobs: [
            { name: 'build', conclusion: 'cancelled', runnerName: 'gh-runner-i-0123456789abcdef0', annotations: [] },
          ],
          startedAt,
          completedAt,
        },
      ],
    }).id;
    await h.signals.record({
      runnerKey: 'i-0123456789abcdef0',
      kind: 'spot-interruption',
      eventTime: new Date(Date.parse(completedAt) - 60_000).toISOString(),
      eventId: 'evt-backtest',
      source: 'aws.ec2',
      instanceId: 'i-0123456789abcdef0',
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('exact runner signals from the table are consulted as the worker would: a cancelled job becomes a re-run reprise would make', async () => {
    const without = captureIo(appEnv(h.sim.url));
    expect(await main(['backtest', 'acme/signals', '--json'], without)).toBe(0);
    const plain = JSON.parse(without.out()) as JsonReport;
    expect(plain.attempts.map((a) => [a.runId, a.class, a.judgement.decision])).toEqual([
      [runId, 'agreed_leave', 'no_infra_evidence'],
    ]);

    const io = captureIo(appEnv(h.sim.url), { dynamodb: h.dynamo.client });
    expect(await main(['backtest', 'acme/signals', '--json', '--table', TABLE], io)).toBe(0);
    const r = JSON.parse(io.out()) as JsonReport;
    expect(r.signals).toBe(`read from DynamoDB table ${TABLE}`);
    expect(r.attempts.map((a) => [a.runId, a.class])).toEqual([[runId, 'reprise_only']]);
    expect(r.attempts[0]?.judgement.jobs[0]?.source).toBe('signal');
    expect(r.summary.evidence).toEqual([{ name: 'exact signal', count: 1 }]);
  });
});
