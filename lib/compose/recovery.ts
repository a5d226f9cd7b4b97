/**
 * What the local runtime does for messages and claims a process left behind: at a start on a
 * data dir, settle every claim an earlier process left (lib/reconcile/restart.ts), knowing which
 * attempts the queue rebuilt from disk already holds a message for; and for the dead-letter
 * queue, record a dead-lettered attempt `abandoned` and give it back before a redrive
 * (lib/replay/dead-letters.ts).
 */
import type { EventPublisher } from '../events/types.js';
import type { GitHubClients } from '../github/client.js';
import type { Ledger } from '../ledger/ledger.js';
import type { RunMessage } from '../model.js';
import { attemptKey } from '../records.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { RunQueue } from '../queue/run-queue.js';
import { type RestartSummary, sweepAfterRestart } from '../reconcile/restart.js';
import { abandonDeadLetter, type DeadLetterContext, releaseDeadLettered } from '../replay/dead-letters.js';

/** The attempts the queue holds a message for (bodies that are not run messages are skipped). */
function queuedAttempts(bodies: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const body of bodies) {
    try {
      const m = JSON.parse(body) as RunMessage;
      out.add(attemptKey(m.repository.id, m.runId, m.runAttempt));
    } catch {
      // Not a run message: nothing to match.
    }
  }
  return out;
}

/** What the restart sweep needs: the ledger's claims, what the rebuilt queue holds, and where to send what it does not. */
export interface RestartParts {
  readonly ledger: Pick<Ledger, 'attempts' | 'reconcile'>;
  /** The bodies of the messages the queue holds after its restore. */
  readonly queuedBodies: () => readonly string[];
  /** Where an attempt the queue holds no message for is sent again. */
  readonly queue: RunQueue;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly owner: string;
  readonly events?: EventPublisher;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
}

/** Settles the claims of earlier processes, sending again only the attempts the queue holds no message for. */
export function recoverAfterRestart(parts: RestartParts): Promise<RestartSummary> {
  const queued = queuedAttempts(parts.queuedBodies());
  return sweepAfterRestart({
    store: parts.ledger.reconcile(parts.now),
    attempts: parts.ledger.attempts,
    client: parts.client,
    graphqlUrl: parts.graphqlUrl,
    queue: parts.queue,
    ...(parts.events && { events: parts.events }),
    log: parts.log,
    metrics: parts.metrics,
    now: parts.now,
    owner: parts.owner,
    queued: (msg) => queued.has(attemptKey(msg.repository.id, msg.runId, msg.runAttempt)),
  });
}

/** What dead-letter handling needs: the ledger's attempts, and how its records are published and timed. */
export interface DeadLetterParts extends Omit<DeadLetterContext, 'attempts'> {
  readonly ledger: Pick<Ledger, 'attempts'>;
}

/** What the local runtime does with a dead letter: record it abandoned, and give it back before a redrive. */
export interface DeadLetterHandling {
  /** A message just moved to the dead-letter queue: its attempt recorded `abandoned`, unless something holds it. */
  abandon(letter: {
    readonly body: string;
    readonly messageId: string;
    readonly receives: number;
    readonly reason: string;
  }): Promise<boolean>;
  /** Before a redrive: the `abandoned` records of these messages given back; how many. */
  release(bodies: readonly string[]): Promise<number>;
}

/** Dead-letter handling on the process's ledger, as the local runtime's queue and `POST /redrive` call it. */
export function composeDeadLetters(parts: DeadLetterParts): DeadLetterHandling {
  const { ledger, ...rest } = parts;
  const ctx: DeadLetterContext = { ...rest, attempts: ledger.attempts };
  return {
    abandon: (letter) => abandonDeadLetter(letter, ctx),
    release: (bodies) => releaseDeadLettered(bodies, ctx),
  };
}
