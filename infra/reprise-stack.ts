import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Reprise, type RepriseProps } from './reprise.js';

/** Properties of {@link RepriseStack}. */
export interface RepriseStackProps extends StackProps {
  /**
   * Everything the {@link Reprise} construct takes.
   * @default - the construct's defaults
   */
  readonly reprise?: RepriseProps;
}

/** The deployable unit: one {@link Reprise} and the outputs an operator needs after `cdk deploy`. */
export class RepriseStack extends Stack {
  public readonly reprise: Reprise;

  public constructor(scope: Construct, id: string, props: RepriseStackProps = {}) {
    super(scope, id, { description: 'reprise: re-runs GitHub Actions jobs lost to infrastructure', ...props });
    const r = (this.reprise = new Reprise(this, 'Reprise', props.reprise));
    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out('WebhookUrl', r.webhookUrl, 'Webhook URL of the GitHub App');
    out('SignalsUrl', r.signalsUrl, 'Endpoint for runner signals from external agents (POST)');
    out('GitHubAppSecretName', r.githubAppSecret.secretName, 'Fill with {"appId":"…","privateKey":"…"}');
    out('WebhookSecretName', r.webhookSecret.secretName, 'Webhook secret to paste into the GitHub App');
    out('SignalSecretName', r.signalSecret.secretName, 'Shared secret of POST /signals');
    out('DashboardUrl', r.dashboardUrl, 'CloudWatch dashboard');
    out('TableName', r.table.tableName, 'DynamoDB table');
    out('QueueUrl', r.workQueue.queueUrl, 'SQS FIFO work queue');
    out('AlarmTopicArn', r.alarmTopic.topicArn, 'SNS topic every alarm notifies');
  }
}
