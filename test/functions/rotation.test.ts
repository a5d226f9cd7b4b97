/**
 * The deployed handlers themselves, not only the helper they use, pick up a rotated GitHub App
 * secret. Secrets Manager does not exist here, so its read is the one thing replaced; the
 * handlers' own assembly runs, with the deciding and sweeping parts counted instead of run.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const secret = vi.hoisted(() => ({ value: '', reads: [] as { name: string; maxAge: unknown }[] }));
const built = vi.hoisted(() => ({ reconcilers: 0, workers: 0, sweeps: 0, batches: 0 }));

vi.mock('@aws-lambda-powertools/parameters/secrets', () => ({
  getSecret: async (name: string, opts?: { maxAge?: number }) => {
    secret.reads.push({ name, maxAge: opts?.maxAge });
    return secret.value;
  },
}));
vi.mock('../../lib/reconcile/reconciler.js', async (original) => ({
  ...(await original<typeof import('../../lib/reconcile/reconciler.js')>()),
  Reconciler: class {
    constructor() {
      built.reconcilers++;
    }
    async sweep() {
      built.sweeps++;
      return {};
    }
  },
}));
vi.mock('../../lib/worker/handler.js', async (original) => ({
  ...(await original<typeof import('../../lib/worker/handler.js')>()),
  createWorkerHandler: () => {
    built.workers++;
    return async () => {
      built.batches++;
      return { batchItemFailures: [] };
    };
  },
}));

const ENV = {
  TABLE_NAME: 'reprise-test',
  QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/reprise-runs.fifo',
  GITHUB_APP_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:reprise-app',
  AWS_REGION: 'us-east-1',
  POWERTOOLS_METRICS_DISABLED: 'true',
};
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(ENV)) [saved[k], process.env[k]] = [process.env[k], v];
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const token = (t: string) => JSON.stringify({ token: t });
const context = { getRemainingTimeInMillis: () => 60_000 } as unknown as Context;

describe('a rotated App secret reaches the deployed functions without a restart', () => {
  it('reconciler: reads the secret with a five-minute cache; an unchanged secret keeps its clients, a changed one builds new ones', async () => {
    const { handler } = await import('../../functions/reconciler.js');
    secret.value = token('ghs_first');
    await handler();
    await handler();
    expect([built.reconcilers, built.sweeps]).toEqual([1, 2]);
    secret.value = token('ghs_rotated');
    await handler();
    expect([built.reconcilers, built.sweeps]).toEqual([2, 3]);
    expect(secret.reads.every((r) => r.name === ENV.GITHUB_APP_SECRET_ARN && r.maxAge === 300)).toBe(true);
  });

  it('worker: reads the secret with a five-minute cache; an unchanged secret keeps its handler, a changed one builds a new one', async () => {
    const { handler } = await import('../../functions/worker.js');
    const event: SQSEvent = { Records: [] };
    secret.value = token('ghs_first');
    await handler(event, context);
    await handler(event, context);
    expect([built.workers, built.batches]).toEqual([1, 2]);
    secret.value = token('ghs_rotated');
    await handler(event, context);
    expect([built.workers, built.batches]).toEqual([2, 3]);
    expect(secret.reads.at(-1)).toEqual({ name: ENV.GITHUB_APP_SECRET_ARN, maxAge: 300 });
  });
});
