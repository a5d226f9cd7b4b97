/**
 * The door to the embedded queue: the local runtime reaches lib/queue/embedded/ only through
 * this module (a lint rule holds it), so the implementation's files can move freely.
 */
export type { EmbeddedFifoQueue } from './embedded/fifo-queue.js';
export { openRunQueue } from './embedded/open.js';
export { QueuePoller } from './embedded/poller.js';
export { embeddedQueue, embeddedRunQueue } from './embedded/queue.js';
