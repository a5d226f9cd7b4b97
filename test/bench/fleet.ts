/** The local runtime in this process, in front of the GitHub simulator, for the latency section. */
import { MAX_BUDGET_PER_HOUR } from '../../lib/config/settings-table.js';
import { type Runtime, startRuntime } from '../../lib/local/runtime.js';
import type { RunOutcome } from '../../lib/worker/result.js';
import { GitHubSimulator } from '../sim/index.js';
import { appEnv } from '../support/harness.js';
import { LoadGenerator, WEBHOOK_SECRET } from './load.js';
import { CapacityMeter, CountingLog } from './meters.js';

export interface Fleet {
  readonly sim: GitHubSimulator;
  readonly rt: Runtime;
  readonly load: LoadGenerator;
  readonly log: CountingLog;
  /** DynamoDB capacity consumed by the runtime (intake and worker together). */
  readonly meter: CapacityMeter;
  /** Run id → every outcome the worker reached for it. */
  readonly outcomes: Map<number, RunOutcome[]>;
  /** Delivery GUID → when its POST /webhook reached the runtime (Date.now()). */
  readonly arrivals: Map<string, number>;
  /** Resolves once every run has an outcome and the queue is empty. */
  settle(runIds: readonly number[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The environment the runtime reads, pointed at the simulator. The retry budget and the pace
 * stay on (their reads and writes are part of a decision) but high enough never to stop or
 * delay a re-run (the wave section measures the pace); the local
 * reconciler's timer is off, as its sweeps are a separate scheduled function, not a decision.
 */
export const runtimeEnv = (sim: GitHubSimulator): Record<string, string> => ({
  ...appEnv(sim.url),
  WEBHOOK_SECRET,
  // The highest budget the setting accepts: on, and never reached by a bench.
  RETRY_BUDGET_PER_HOUR: String(MAX_BUDGET_PER_HOUR),
  PACE_PER_MINUTE: '1000000',
  PACE_PER_HOUR: '0',
  RECONCILE_INTERVAL_SECONDS: '0',
});

export async function startFleet(opts: { latencyMs: number; workerConcurrency: number }): Promise<Fleet> {
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs });
  const log = new CountingLog();
  const outcomes = new Map<number, RunOutcome[]>();
  const rt = await startRuntime({
    env: runtimeEnv(sim),
    log,
    port: 0,
    workerConcurrency: opts.workerConcurrency,
    onOutcome: (m, o) => outcomes.set(m.runId, [...(outcomes.get(m.runId) ?? []), o]),
  });
  const arrivals = new Map<string, number>();
  rt.server.prependListener('request', (req) => {
    const guid = req.headers['x-github-delivery'];
    if (typeof guid === 'string' && !arrivals.has(guid)) arrivals.set(guid, Date.now());
  });
  const load = new LoadGenerator(sim);
  load.webhookUrl = `${rt.url}/webhook`;
  return {
    sim,
    rt,
    load,
    log,
    meter: new CapacityMeter(rt.dynamo.client),
    outcomes,
    arrivals,
    async settle(runIds, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (runIds.some((id) => !outcomes.has(id)) || rt.queue.size() > 0) {
        if (performance.now() > deadline) {
          const missing = runIds.filter((id) => !outcomes.has(id)).length;
          throw new Error(
            `${missing} of ${runIds.length} runs undecided after ${timeoutMs} ms ${log.problems[0] ?? ''}`,
          );
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      await rt.close();
      await sim.close();
    },
  };
}
