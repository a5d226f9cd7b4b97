import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge } from './nag.js';

/** Every queue of the stack: SQS-managed encryption at rest, TLS enforced by the queue policy. */
export function secureQueue(scope: Construct, id: string, props: QueueProps = {}): Queue {
  return new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    ...props,
  });
}

/** Marks a queue as a dead-letter queue for cdk-nag: it has nowhere further to send what it holds. */
export function acknowledgeDeadLetterQueue(queue: Queue, whatItHolds: string): void {
  const reason =
    `This queue is the dead-letter queue for ${whatItHolds}; a DLQ of a DLQ would only move the problem. ` +
    'Its depth alarms at > 0 and its 14-day retention leaves time to inspect and redrive.';
  acknowledge(queue, 'Serverless-SQSRedrivePolicy', reason);
}

export interface WorkQueuesProps {
  /** The worker's timeout: the visibility timeout is six times it, as Lambda recommends for SQS sources. */
  readonly workerTimeout: Duration;
  readonly maxReceiveCount: number;
  /** How long a run may wait in the queue for its re-run slot: the queue keeps messages far longer. */
  readonly maxWait: Duration;
}

/** The work queue's retention: a message waiting for its slot must never age out. */
export const WORK_QUEUE_RETENTION = Duration.days(4);

/** The FIFO work queue (group: repository and run; dedup: delivery) and its FIFO dead-letter queue. */
export class WorkQueues extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;

  public constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    if (props.maxWait.toSeconds() >= WORK_QUEUE_RETENTION.toSeconds()) {
      throw new Error('Reprise: maxWait must be shorter than the work queue retention (4 days)');
    }
    this.deadLetterQueue = secureQueue(this, 'DeadLetterQueue', {
      fifo: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeDeadLetterQueue(this.deadLetterQueue, 'run messages the worker failed on every receive');
    this.queue = secureQueue(this, 'Queue', {
      fifo: true,
      // The intake sets MessageDeduplicationId to the delivery GUID, so a redelivery is dropped within 5 minutes.
      contentBasedDeduplication: false,
      visibilityTimeout: Duration.seconds(props.workerTimeout.toSeconds() * 6),
      retentionPeriod: WORK_QUEUE_RETENTION,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}

/** Receives EC2 events the signal function could not take, from EventBridge and from Lambda's async retries. */
export function signalDeadLetterQueue(scope: Construct, id: string): Queue {
  const queue = secureQueue(scope, id, { retentionPeriod: Duration.days(14) });
  acknowledgeDeadLetterQueue(queue, 'EC2 events the signal function could not take');
  acknowledge(
    queue,
    'AwsSolutions-SQS3',
    'This queue is a dead-letter queue: the DLQ of both EventBridge rule targets and the on-failure destination ' +
      'of the EC2 signal function. cdk-nag only recognises DLQs referenced by a redrive policy.',
  );
  return queue;
}
