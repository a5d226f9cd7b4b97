/**
 * The dead-letter queue on SQS, read and redriven with the calls every SQS endpoint has
 * (moto has no StartMessageMoveTask): a view that receives and hands every letter back at once,
 * and a redrive that sends each letter to the queue in its group and then deletes it.
 */
import { ChangeMessageVisibilityCommand, DeleteMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { SendInput } from '../../../lib/queue/run-queue.js';
import { type ReceiveFrom, receiveRecords } from './sqs-receive.js';
import { refusing } from '../../../lib/queue/sqs/sqs-refusal.js';

/** How long a letter being read or moved stays hidden from another reader; a crash leaves it for this long. */
export const DEAD_LETTER_HOLD_SECONDS = 60;

/**
 * The letters, oldest death first, left on the dead-letter queue. A FIFO queue delivers nothing
 * more of a group while a batch of it is out, so this shows at most the first ten of each group;
 * and each read counts as a receive in the letters' ApproximateReceiveCount.
 */
export async function peekDeadLetters(dlq: ReceiveFrom): Promise<SQSRecord[]> {
  const seen: SQSRecord[] = [];
  for (;;) {
    const batch = await receiveRecords(dlq, 10, DEAD_LETTER_HOLD_SECONDS);
    if (batch.length === 0) break;
    seen.push(...batch);
  }
  const released = await Promise.allSettled(
    seen.map((r) =>
      refusing(() =>
        dlq.sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: dlq.queueUrl,
            ReceiptHandle: r.receiptHandle,
            VisibilityTimeout: 0,
          }),
        ),
      ),
    ),
  );
  const failed = released.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return seen;
}

/**
 * Moves every letter back to the tail of its group; how many moved. Each is sent before it is
 * deleted, under a deduplication id of its own letter (the original's is still remembered by the
 * queue for five minutes), so a redrive cut short between the two and run again within five minutes sends it once, not twice.
 */
export async function redriveDeadLetters(
  dlq: ReceiveFrom,
  send: (input: SendInput) => Promise<unknown>,
): Promise<number> {
  let moved = 0;
  for (;;) {
    const batch = await receiveRecords(dlq, 10, DEAD_LETTER_HOLD_SECONDS);
    if (batch.length === 0) return moved;
    for (const letter of batch) {
      const groupId = letter.attributes.MessageGroupId;
      if (!groupId) throw new Error(`dead letter ${letter.messageId} has no MessageGroupId: not from a FIFO queue`);
      await send({ body: letter.body, groupId, deduplicationId: `redrive-${letter.messageId}` });
      await refusing(() =>
        dlq.sqs.send(new DeleteMessageCommand({ QueueUrl: dlq.queueUrl, ReceiptHandle: letter.receiptHandle })),
      );
      moved++;
    }
  }
}
