/**
 * The SQS queue's entry point: the deployed functions and the CLI reach lib/queue/sqs/ only
 * through this module (a lint rule holds it), so the implementation's files can move freely.
 */
export { sqsDeferringQueue } from './sqs/sqs-deferral.js';
export { sqsRunQueue } from './sqs/sqs-run-queue.js';
