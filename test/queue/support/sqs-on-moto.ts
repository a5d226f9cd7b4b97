/**
 * SQS FIFO queues on one moto_server for the contract suite: each case gets a queue of its own
 * (with its dead-letter queue) and the `Queue` on SQS (test/support/sqs/) in front of it.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type RawSendQueue, sqsQueue } from '../../support/sqs/sqs-queue.js';
import { type MotoServer, startMoto } from '../../deployed/moto-server.js';

const REGION = 'eu-west-1';

export interface QueueShape {
  readonly visibilitySeconds: number;
  readonly maxReceiveCount: number;
}

export interface MotoQueues {
  make(shape: QueueShape): Promise<{ queue: RawSendQueue; arn: string }>;
  close(): Promise<void>;
}

export async function startMotoQueues(motoPath: string): Promise<MotoQueues> {
  const moto: MotoServer = await startMoto(motoPath);
  const sqs = new SQSClient({
    endpoint: moto.url,
    region: REGION,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  let made = 0;

  const create = async (name: string, attributes: Record<string, string>) => {
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!;
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    return { url, arn: Attributes!.QueueArn! };
  };

  return {
    make: async ({ visibilitySeconds, maxReceiveCount }) => {
      const n = ++made;
      const dlq = await create(`contract-${n}-dlq.fifo`, { FifoQueue: 'true' });
      const main = await create(`contract-${n}.fifo`, {
        FifoQueue: 'true',
        VisibilityTimeout: String(visibilitySeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount }),
      });
      const queue = sqsQueue({
        sqs,
        queueUrl: main.url,
        queueArn: main.arn,
        region: REGION,
        deadLetterQueueUrl: dlq.url,
        deadLetterQueueArn: dlq.arn,
      });
      return { queue, arn: main.arn };
    },
    close: async () => {
      sqs.destroy();
      await moto.close();
    },
  };
}
