/**
 * The embedded queue's entry point: the local runtime reaches lib/queue/embedded/ only through
 * this module (a lint rule holds it), so the implementation's files can move freely.
 */
export type { EmbeddedFifoQueue } from './embedded/fifo-queue.js';
export { openRunQueue, type OpenedQueue } from './embedded/open.js';
export { QueuePoller } from './embedded/poller.js';
export type { EmbeddedQueue } from './embedded/queue.js';
