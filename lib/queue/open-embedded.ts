/**
 * The door to the embedded queue: the local runtime reaches lib/queue/embedded/ only through
 * this module (a lint rule holds it), so the implementation's files can move freely.
 */
export type { DeadLetter } from './embedded/dead-letters.js';
export type { EmbeddedFifoQueue, QueueOptions, QueueStats } from './embedded/fifo-queue.js';
export { type OpenedQueue, openRunQueue } from './embedded/open.js';
export { QueuePoller, type QueuePollerOptions, type SqsBatchHandler } from './embedded/poller.js';
export { embeddedQueue, embeddedRunQueue, type EmbeddedQueueOptions } from './embedded/queue.js';
export type { RestoredQueue } from './embedded/restore.js';
