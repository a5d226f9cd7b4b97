import type { RunMessage } from '../model.js';

/** The run queue: SQS FIFO when deployed, the embedded queue locally. */
export interface RunQueue {
  send(message: RunMessage, groupId: string, deduplicationId: string): Promise<void>;
}
