import type { RepriseEvent } from '../../lib/events/types.js';
import { createAppClient } from '../../lib/github/client.js';
import type { Ledger } from '../../lib/ledger/ledger.js';
import { QueuePoller } from '../../lib/queue/embedded/poller.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedQueue, embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { type ReconcileLimits, Reconciler } from '../../lib/reconcile/reconciler.js';
import type { RunQueue } from '../../lib/queue/run-queue.js';
import type { Harness } from '../support/harness.js';
import { testPrivateKey } from '../support/harness.js';
import { TEXT } from '../support/evidence.js';

export const LOST = TEXT.selfHostedEmptyName;
export const EXIT = 'Process completed with exit code 1.';

/** A reconciler on the harness's table and simulator, with its own queue, metrics and clock. */
export interface Kit {
  readonly reconciler: Reconciler;
  readonly queue: EmbeddedFifoQueue;
  readonly metrics: MemoryMetrics;
  /** Events the reconciler published, in order. */
  readonly events: RepriseEvent[];
  /** Messages the reconciler enqueued, parsed. */
  enqueued(): RunMessage[];
  /** Lets the harness's worker decide everything in the kit's queue. */
  drain(over?: Parameters<Harness['worker']>[0]): Promise<void>;
}

export function kit(
  h: Harness,
  opts: {
    offsetMs?: number;
    limits?: Partial<ReconcileLimits>;
    apiUrl?: string;
    queue?: EmbeddedFifoQueue;
    send?: RunQueue['send'];
    ledger?: Ledger;
    app?: boolean;
  } = {},
): Kit {
  // The queue's clock stands still: a message leaves flight only when the worker deletes it.
  const queue = opts.queue ?? new EmbeddedFifoQueue({ name: 'reprise-runs.fifo', now: () => 0 });
  const runQueue = embeddedRunQueue(queue);
  const metrics = new MemoryMetrics();
  const sent: RunMessage[] = [];
  const events: RepriseEvent[] = [];
  const reconciler = new Reconciler({
    events: { publish: async (e) => void events.push(e) },
    ledger: opts.ledger ?? h.ledger,
    client: h.client,
    graphqlUrl: h.sim.graphqlUrl,
    apiUrl: opts.apiUrl ?? h.sim.url,
    ...(opts.app !== false && {
      appClient: createAppClient({
        apiUrl: opts.apiUrl ?? h.sim.url,
        credentials: { kind: 'app', appId: '1234567', privateKey: testPrivateKey() },
        log: h.log,
        retryBaseMs: 1,
      }),
    }),
    queue: {
      send:
        opts.send ??
        (async (message, groupId, deduplicationId) => {
          sent.push(message as RunMessage);
          await runQueue.send(message, groupId, deduplicationId);
        }),
    },
    log: h.log,
    metrics,
    now: () => Date.now() + (opts.offsetMs ?? 0),
    ...(opts.limits && { limits: opts.limits }),
  });
  return {
    events,
    reconciler,
    queue,
    metrics,
    enqueued: () => [...sent],
    drain: async (over) => {
      const poller = new QueuePoller(embeddedQueue(queue), h.worker(over), { onError: () => undefined });
      await poller.drain(10_000);
    },
  };
}

export const lostRun = (h: Harness, repo = 'acme/reconcile', onRerun: 'success' | 'same' = 'success') =>
  h.sim.addRun({
    repo,
    onRerun,
    jobs: [{ name: 'build', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
  });
