/** The embedded queue's dead-letter queue: messages received too often without being deleted, until a redrive. */
import type { SQSRecord } from 'aws-lambda';
import type { StoredMessage } from './message.js';

/** A message moved to the dead-letter queue, as it was last received, and why it moved. */
export interface DeadLetter {
  record: SQSRecord;
  reason: string;
}

/** The dead letters in the order they died, kept whole so a redrive can put them back. */
export class DeadLetterQueue {
  /** In the order they died. */
  readonly letters: DeadLetter[] = [];
  private readonly messages = new Map<string, StoredMessage>();

  get(messageId: string): StoredMessage | undefined {
    return this.messages.get(messageId);
  }

  ids(): IterableIterator<string> {
    return this.messages.keys();
  }

  reasonOf(messageId: string): string | undefined {
    return this.letters.find((d) => d.record.messageId === messageId)?.reason;
  }

  add(message: StoredMessage, record: SQSRecord, reason: string): void {
    this.messages.set(message.messageId, message);
    this.letters.push({ record, reason });
  }

  /** Empties the queue: its messages in the order they died, for a redrive. */
  drain(): StoredMessage[] {
    const out = this.letters.map((d) => this.messages.get(d.record.messageId)).filter((m) => m !== undefined);
    this.letters.length = 0;
    this.messages.clear();
    return out;
  }
}
