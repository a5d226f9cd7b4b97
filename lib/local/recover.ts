/**
 * What a start on a data dir does before its worker polls: settle every claim an earlier
 * process of that data dir left (lib/reconcile/restart.ts), knowing which attempts the queue
 * rebuilt from disk already holds a message for.
 */
import type { GitHubClients } from '../github/client.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunMessage } from '../model.js';
import type { EventPublisher } from '../events/types.js';
import type { Log, MetricSink } from '../obs/types.js';
import { type RestartSummary, sweepAfterRestart } from '../reconcile/restart.js';
import type { RunQueue } from '../queue/run-queue.js';
import type { EmbeddedFifoQueue } from '../queue/open-embedded.js';

const attemptKey = (m: Pick<RunMessage, 'repository' | 'runId' | 'runAttempt'>): string =>
  `${m.repository.id}#${m.runId}#${m.runAttempt}`;

/** The attempts the queue holds a message for (bodies that are not run messages are skipped). */
function queuedAttempts(queue: EmbeddedFifoQueue): Set<string> {
  const out = new Set<string>();
  for (const body of queue.bodies()) {
    try {
      out.add(attemptKey(JSON.parse(body) as RunMessage));
    } catch {
      // Not a run message: nothing to match.
    }
  }
  return out;
}

export function recoverAfterRestart(deps: {
  readonly ledger: Pick<Ledger, 'attempts' | 'reconcile'>;
  readonly queue: EmbeddedFifoQueue;
  readonly enqueue: RunQueue;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly owner: string;
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
}): Promise<RestartSummary> {
  const queued = queuedAttempts(deps.queue);
  return sweepAfterRestart({
    store: deps.ledger.reconcile(deps.now),
    attempts: deps.ledger.attempts,
    client: deps.client,
    graphqlUrl: deps.graphqlUrl,
    queue: deps.enqueue,
    ...(deps.events && { events: deps.events }),
    log: deps.log,
    metrics: deps.metrics,
    now: deps.now,
    owner: deps.owner,
    queued: (msg) => queued.has(attemptKey(msg)),
  });
}
