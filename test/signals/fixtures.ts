import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { EmbeddedDynamo } from '../../lib/local/dynamo.js';
import { createTable } from '../../lib/ledger/table.js';
import type { Ec2Event } from '../../lib/signals/ec2-events.js';
import { openLedger } from '../../lib/ledger/ledger.js';

/**
 * EventBridge events shaped as AWS documents them (EC2 User Guide: "Spot Instance interruption
 * notices", "EC2 instance rebalance recommendations", "State change events for Amazon EC2
 * instances"). The documented ids, account, region and instance id are kept; the documented
 * placeholder times (`yyyy-mm-ddThh:mm:ssZ`) are replaced by real ones.
 */
export const INSTANCE_ID = 'i-1234567890abcdef0';
export const ACCOUNT = '123456789012';

export const spotInterruptionWarning = (time = '2026-10-02T16:13:05Z', instanceId = INSTANCE_ID): Ec2Event => ({
  version: '0',
  id: '12345678-1234-1234-1234-123456789012',
  'detail-type': 'EC2 Spot Instance Interruption Warning',
  source: 'aws.ec2',
  account: ACCOUNT,
  time,
  region: 'us-east-2',
  resources: [`arn:aws:ec2:us-east-2a:instance/${instanceId}`],
  detail: {
    'instance-id': instanceId,
    'instance-action': 'terminate',
  },
});

export const rebalanceRecommendation = (time = '2026-10-02T16:10:00Z'): Ec2Event => ({
  version: '0',
  id: '12345678-1234-1234-1234-123456789013',
  'detail-type': 'EC2 Instance Rebalance Recommendation',
  source: 'aws.ec2',
  account: ACCOUNT,
  time,
  region: 'us-east-2',
  resources: [`arn:aws:ec2:us-east-2:${ACCOUNT}:instance/${INSTANCE_ID}`],
  detail: {
    'instance-id': INSTANCE_ID,
  },
});

/** The documented example is `pending`; the state and id vary per test. */
export const stateChange = (
  state: string,
  time = '2026-10-02T16:15:07Z',
  id = '7bf73129-1428-4cd3-a780-95db273d1602',
): Ec2Event => ({
  version: '0',
  id,
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: ACCOUNT,
  time,
  region: 'us-east-1',
  resources: [`arn:aws:ec2:us-east-1:${ACCOUNT}:instance/${INSTANCE_ID}`],
  detail: {
    'instance-id': INSTANCE_ID,
    state,
  },
});

/**
 * Auto Scaling's events as the EC2 Auto Scaling User Guide documents them ("Amazon EC2 Auto Scaling
 * event reference"): the termination lifecycle action and a successful termination, the documented
 * ids kept and the placeholder times replaced.
 */
export const asgTerminateAction = (time = '2026-10-02T16:14:30Z', instanceId = INSTANCE_ID): Ec2Event => ({
  version: '0',
  id: '12345678-1234-1234-1234-123456789012',
  'detail-type': 'EC2 Instance-terminate Lifecycle Action',
  source: 'aws.autoscaling',
  account: ACCOUNT,
  time,
  region: 'us-west-2',
  resources: ['auto-scaling-group-arn'],
  detail: {
    LifecycleActionToken: '87654321-4321-4321-4321-210987654321',
    AutoScalingGroupName: 'my-asg',
    LifecycleHookName: 'my-lifecycle-hook',
    EC2InstanceId: instanceId,
    LifecycleTransition: 'autoscaling:EC2_INSTANCE_TERMINATING',
    NotificationMetadata: 'additional-info',
    Origin: 'AutoScalingGroup',
    Destination: 'EC2',
  },
});

export const asgTerminateSuccessful = (
  cause = 'At 2026-10-02T16:14:20Z a user request update of AutoScalingGroup constraints to min: 0, max: 1, desired: 0 changing the desired capacity from 1 to 0.  At 2026-10-02T16:14:25Z an instance was taken out of service in response to a difference between desired and actual capacity, shrinking the capacity from 1 to 0.',
  startTime = '2026-10-02T16:14:25.000Z',
): Ec2Event => ({
  version: '0',
  id: '12345678-1234-1234-1234-123456789013',
  'detail-type': 'EC2 Instance Terminate Successful',
  source: 'aws.autoscaling',
  account: ACCOUNT,
  time: '2026-10-02T16:16:10Z',
  region: 'us-west-2',
  resources: ['auto-scaling-group-arn', `instance-arn`],
  detail: {
    StatusCode: 'InProgress',
    Description: `Terminating EC2 instance: ${INSTANCE_ID}`,
    AutoScalingGroupName: 'my-asg',
    ActivityId: '87654321-4321-4321-4321-210987654321',
    Details: { 'Availability Zone': 'us-west-2b', 'Subnet ID': 'subnet-12345678' },
    RequestId: '12345678-1234-1234-1234-123456789012',
    EndTime: '2026-10-02T16:16:10.000Z',
    EC2InstanceId: INSTANCE_ID,
    StartTime: startTime,
    Cause: cause,
    Origin: 'AutoScalingGroup',
    Destination: 'EC2',
  },
});

/** An aws.ec2 event the signal function must not act on. */
export const amiStateChange = (): Ec2Event => ({
  version: '0',
  id: '3e5a9c2b-58a1-4d4f-9c34-7cbf3a1e2f10',
  'detail-type': 'EC2 AMI State Change',
  source: 'aws.ec2',
  account: ACCOUNT,
  time: '2026-10-02T16:15:07Z',
  region: 'us-east-1',
  resources: [`arn:aws:ec2:us-east-1::image/ami-0b9b4e1a3d497aefa`],
  detail: {
    RequestId: '7fb8cdd4-8a3f-4a02-8dc8-a2d7ab0d0d0a',
    ImageId: 'ami-0b9b4e1a3d497aefa',
    State: 'available',
    ErrorMessage: '',
  },
});

/** Every item of a table: the tests check what was (and was not) written. */
export async function scanTable(client: DynamoDBClient, table: string): Promise<Record<string, unknown>[]> {
  const res = await DynamoDBDocumentClient.from(client).send(
    new ScanCommand({ TableName: table, ConsistentRead: true }),
  );
  return res.Items ?? [];
}

let tables = 0;

/** A fresh table in the shared embedded DynamoDB, so tests never see each other's records. */
export async function freshTable(dynamo: EmbeddedDynamo, ttlSeconds = 24 * 3600, now?: () => number) {
  const table = `signals-${++tables}`;
  await createTable(dynamo.client, table);
  // dynalite answers CreateTable before the table is ACTIVE; writes until then are refused.
  while ((await dynamo.client.send(new DescribeTableCommand({ TableName: table }))).Table?.TableStatus !== 'ACTIVE') {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const store = openLedger(dynamo.client, table, now).runnerSignals(ttlSeconds);
  return { table, store, items: () => scanTable(dynamo.client, table) };
}
