import { int } from '../parsers.js';
import { def } from '../setting.js';

/** The work queue and the worker: redelivery before the dead letters, concurrency and batch size. */
export const WORKER_SETTINGS = {
  maxReceiveCount: def({
    env: 'MAX_RECEIVE_COUNT',
    prop: 'maxReceiveCount',
    context: 'maxReceiveCount',
    default: 5,
    parse: int(5, 1000),
    readBy: ['worker'],
    local: false,
    sample: 8,
    doc: 'receives before a work message moves to the dead-letter queue',
  }),
  workerMaxConcurrency: def({
    prop: 'workerMaxConcurrency',
    context: 'workerMaxConcurrency',
    default: 5,
    // Lambda's SQS scaling control accepts 2..1000.
    parse: int(2, 1000, "Lambda's SQS maximum concurrency"),
    readBy: [],
    local: false,
    doc: 'worker invocations at once; bounds the request rate against GitHub',
  }),
  workerBatchSize: def({
    prop: 'workerBatchSize',
    context: 'workerBatchSize',
    default: 10,
    parse: int(1, 10, 'FIFO limit'),
    readBy: [],
    local: false,
    doc: 'messages per worker invocation',
  }),
} as const;
