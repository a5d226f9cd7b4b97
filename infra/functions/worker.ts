import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { RepriseFunction } from './reprise-function.js';
import { acknowledge } from '../nag.js';
import { commonProps, type FunctionDeps, grantResources } from './deps.js';
import { TIMEOUTS } from './timeouts.js';

/**
 * The worker: takes the work queue's messages, classifies each completed run and re-runs the jobs
 * lost to infrastructure. Among its settings, MAX_RECEIVE_COUNT lets it tell the last receive
 * before the redrive; the queue's URL is where it changes a failed message's visibility.
 */
export class WorkerFunction extends RepriseFunction {
  public constructor(scope: Construct, id: string, deps: FunctionDeps) {
    super(scope, id, {
      ...commonProps('worker', deps),
      description: 'reprise: classifies a completed run and re-runs jobs lost to infrastructure',
      noDeadLetterQueueReason:
        'Invoked by an SQS event source mapping, where a Lambda DLQ never applies: messages that fail ' +
        'maxReceiveCount times move to the FIFO dead-letter queue by the queue redrive policy.',
      timeout: TIMEOUTS.worker,
      memorySize: 512,
    });
    const p = deps.props;
    deps.eventBus.grantPutEventsTo(this.role);
    grantResources('worker', deps, this.role);
    this.function.addEventSource(
      new SqsEventSource(deps.workQueue, {
        batchSize: p.workerBatchSize,
        reportBatchItemFailures: true,
        maxConcurrency: p.workerMaxConcurrency,
      }),
    );
    acknowledge(
      this.function,
      'Serverless-LambdaEventSourceMappingDestination',
      'An SQS event source cannot take an on-failure destination: failed messages go to the FIFO dead-letter ' +
        'queue through the queue redrive policy after maxReceiveCount receives, and that queue is alarmed.',
    );
  }
}
