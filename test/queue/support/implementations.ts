/**
 * The two queues the contract suite runs on, each as a factory of fresh queues and a way to let
 * time pass: the embedded queue moves its injectable clock; SQS on moto waits on the wall clock,
 * polling for the event instead of timing it. Where an implementation cannot hold a row (moto's
 * clock cannot be moved) or is known to differ from SQS's documented behaviour, it says so here,
 * with the reason, and the suite marks the row (test/queue/contract.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddedFifoQueue } from '../../../lib/queue/embedded/fifo-queue.js';
import { embeddedQueue } from '../../../lib/queue/embedded/queue.js';
import type { RawSendQueue } from '../../support/sqs/sqs-queue.js';
import { type MotoQueues, type QueueShape, startMotoQueues } from './sqs-on-moto.js';

export type Row =
  | 'stale-handle'
  | 'expired-handle'
  | 'ceiling-from-first-receive'
  | 'dedup-same-message-id'
  | 'dedup-after-delete'
  | 'dedup-window-ends'
  | 'record-send-details'
  | 'batch-group-first'
  | 'send-body-checks';

export interface Subject {
  readonly queue: RawSendQueue;
  /** The queue's ARN, as each record names it in `eventSourceARN`. */
  readonly arn: string;
  /** Lets at least `seconds` pass, then until `happened` answers true (it may be called several times). */
  pass(seconds: number, happened: () => Promise<boolean>): Promise<void>;
  /** Moves the queue's clock, where it has one a test can move. */
  readonly moveClock?: (seconds: number) => void;
}

export interface Implementation {
  readonly name: string;
  /** Why the implementation cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  make(shape: QueueShape): Promise<Subject>;
  /** Rows it cannot hold, and why: skipped. */
  readonly cannot: Partial<Record<Row, string>>;
  /** Rows where it differs from SQS as documented, and where: expected to fail until it is fixed. */
  readonly differs: Partial<Record<Row, string>>;
}

export function embedded(): Implementation {
  let made = 0;
  return {
    name: 'embedded queue',
    unavailable: undefined,
    start: async () => {},
    stop: async () => {},
    make: async ({ visibilitySeconds, maxReceiveCount }) => {
      const clock = { t: 1_700_000_000_000 };
      const fifo = new EmbeddedFifoQueue({
        name: `contract-${++made}.fifo`,
        visibilityTimeoutMs: visibilitySeconds * 1000,
        maxReceiveCount,
        now: () => clock.t,
      });
      const moveClock = (seconds: number) => {
        clock.t += seconds * 1000;
      };
      return {
        queue: {
          ...embeddedQueue(fifo),
          // The raw send the runtime never makes (it sends run messages): the queue's own send, once on disk.
          sendBody: async (input) => {
            const { messageId } = fifo.send(input);
            await fifo.persisted([messageId]);
            return { messageId };
          },
        },
        arn: fifo.arn,
        moveClock,
        pass: async (seconds, happened) => {
          // One millisecond past: a timeout ends when the clock is past it, as on SQS.
          clock.t += seconds * 1000 + 1;
          if (!(await happened())) throw new Error(`nothing happened ${seconds}s on`);
        },
      };
    },
    cannot: {},
    differs: {},
  };
}

/** How long moto is given for an event due after `seconds`: generous, the machine may be loaded. */
const MOTO_GRACE_MS = 30_000;
const MOTO_POLL_MS = 200;

const MOTO_KEEPS_HANDLES =
  'moto keeps every receipt handle a message was given valid (getmoto/moto#4655); on SQS a FIFO handle ' +
  'expires with its visibility timeout (InvalidParameterValue "Reason: The receipt handle has expired"), ' +
  'and "you must use the ReceiptHandle from the most recent time you received the message" (DeleteMessage ' +
  'API reference)';

export function sqsOnMoto(motoPath: string | undefined): Implementation {
  let moto: MotoQueues | undefined;
  return {
    name: 'SQS on moto_server',
    unavailable: motoPath ? undefined : 'moto_server is not on the PATH',
    start: async () => {
      moto = await startMotoQueues(motoPath!);
    },
    stop: async () => moto?.close(),
    make: async (shape) => {
      const { queue, arn } = await moto!.make(shape);
      return {
        queue,
        arn,
        pass: async (seconds, happened) => {
          const deadline = Date.now() + seconds * 1000 + MOTO_GRACE_MS;
          await sleep(seconds * 1000);
          while (!(await happened())) {
            if (Date.now() > deadline) throw new Error(`nothing happened within ${seconds}s and ${MOTO_GRACE_MS} ms`);
            await sleep(MOTO_POLL_MS);
          }
        },
      };
    },
    cannot: {
      'ceiling-from-first-receive':
        "moto's clock is the wall clock, and moto counts the 12 hours from the send; SQS counts them from " +
        'the receive: "its default message visibility timeout is 30 minutes. You could call ' +
        'ChangeMessageVisiblity with a value of two hours and the effective timeout would be two hours and ' +
        '30 minutes ... this time the maximum allowed timeout would be 9 hours and 30 minutes" and "If you ' +
        'attempt to set the VisibilityTimeout to an amount more than the maximum time left, Amazon SQS ' +
        'returns an error" (ChangeMessageVisibility API reference). Held on the embedded queue, whose clock moves',
      'dedup-window-ends':
        "moto's clock is the wall clock: the five-minute window cannot pass in a unit suite. " +
        '"any messages sent with the same MessageDeduplicationId are accepted successfully but aren\'t ' +
        'delivered during the 5-minute deduplication interval" (SendMessage API reference)',
    },
    differs: {
      'stale-handle': MOTO_KEEPS_HANDLES,
      'expired-handle': MOTO_KEEPS_HANDLES,
      'batch-group-first':
        'moto fills a batch in send order across groups; "When you specify a MaxNumberOfMessages parameter ' +
        'in the ReceiveMessage API call, SQS returns as many messages with the same message group ID as ' +
        'possible" (AWS Knowledge Center, "Why doesn\'t my Amazon SQS FIFO queue return all messages")',
      'send-body-checks':
        'moto queues an empty body and one with a NUL; SQS: "The minimum size is one character" and ' +
        '"InvalidMessageContents: The message contains characters outside the allowed set" (SendMessage API reference)',
      'dedup-same-message-id':
        'moto answers a duplicate with a new MessageId; SQS answers with the first send\'s ("accepted ' +
        'successfully but aren\'t delivered", SendMessage API reference)',
      'dedup-after-delete':
        'moto compares a deduplication id only with messages still in the queue; "Amazon SQS continues ' +
        'to keep track of the message deduplication ID even after the message is received and deleted" ' +
        '(SendMessage API reference)',
    },
  };
}
