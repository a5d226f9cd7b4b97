import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Log, MetricSink } from '../obs/types.js';
import { appSecretFix } from '../config/secrets.js';
import { firstReceiveMs, fitBackoff } from './visibility.js';

/*
 * A GitHub App secret that is missing or does not parse is the operator's to fix, and every
 * message would fail the same way until then. So the first invocation that finds it unusable
 * counts AppSecretInvalid (alarmed) and logs the fix, and the batch is held back in the queue:
 * each message is deferred on a growing schedule that spreads MAX_WAIT_SECONDS over the receives
 * left before the redrive, never dead-lettered sooner.
 */

/** What holding a batch back for the App secret needs: outputs, the queue's verbs and its limits. */
export interface CredentialsHoldDeps {
  readonly log: Log;
  readonly metrics: MetricSink;
  /** Hides a message for `seconds` (ChangeMessageVisibility). */
  readonly defer: (record: SQSRecord, seconds: number) => Promise<void>;
  /** Where the secret is, named in the fix. */
  readonly secretId: string;
  /** MAX_WAIT_SECONDS: how long a message may be held for the secret. */
  readonly maxWaitSeconds: number;
  /** The queue's redrive limit. */
  readonly maxReceiveCount: number;
  readonly now?: () => number;
}

/** The first deferral: a fixed secret is used by the next receive within a minute. */
export const FIRST_HOLD_SECONDS = 60;
const GROWTH = 6;

/**
 * How long to hold a message on its `received`-th receive, or undefined when it may be held no
 * longer (the wait or the receives are spent) and goes its way to the dead-letter queue.
 */
export function holdSeconds(
  received: number,
  waitedSeconds: number,
  opts: Pick<CredentialsHoldDeps, 'maxWaitSeconds' | 'maxReceiveCount'>,
): number | undefined {
  const remaining = Math.floor(opts.maxWaitSeconds - waitedSeconds);
  const receivesLeft = opts.maxReceiveCount - received;
  if (remaining <= 0 || receivesLeft <= 0) return undefined;
  // The last receive before the redrive holds the message for the rest of the wait.
  if (receivesLeft === 1) return remaining;
  return Math.min(remaining, FIRST_HOLD_SECONDS * GROWTH ** Math.max(0, received - 1));
}

/** The worker's answer to an unusable App secret, remembering whether the fault was already told. */
export interface CredentialsHold {
  /** Answers a batch that cannot be decided because the App secret is unusable. */
  hold(event: SQSEvent, err: unknown): Promise<SQSBatchResponse>;
  /** The secret worked: the next fault is a new one and is logged with its fix again. */
  recovered(): void;
}

/** A batch held back in the queue while the App secret is unusable: alarmed once, each message deferred on a growing schedule. */
export function credentialsHold(deps: CredentialsHoldDeps): CredentialsHold {
  let faulty = false;
  const clock = deps.now ?? Date.now;
  return {
    recovered() {
      if (faulty) deps.log.info('GitHub App secret is usable again', { secret: deps.secretId });
      faulty = false;
    },
    async hold(event, err) {
      const reason = (err as Error).message;
      deps.metrics.count('AppSecretInvalid');
      if (!faulty) {
        deps.log.error('GitHub App secret cannot be used: runs wait in the queue until it is fixed', {
          secret: deps.secretId,
          reason,
          fix: appSecretFix(deps.secretId),
        });
      }
      faulty = true;
      const now = clock();
      await Promise.all(
        event.Records.map(async (record) => {
          const received = Number(record.attributes.ApproximateReceiveCount ?? '1');
          const first = firstReceiveMs(record, now);
          const wanted = holdSeconds(received, (now - first) / 1000, deps);
          const seconds = wanted === undefined ? undefined : fitBackoff(wanted, first, now);
          const where = { message_id: record.messageId, receive_count: received, reason };
          if (seconds === undefined) {
            deps.log.error('message held for the App secret past MAX_WAIT_SECONDS; it goes to the dead-letter queue', {
              ...where,
              fix: `${appSecretFix(deps.secretId)}, then redrive the dead-letter queue`,
            });
            return;
          }
          deps.log.info('run waits for the App secret', { ...where, wait_seconds: seconds });
          await deps
            .defer(record, seconds)
            .catch((e: Error) => deps.log.error('visibility change refused', { ...where, seconds, error: e.message }));
        }),
      );
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    },
  };
}
