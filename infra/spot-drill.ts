import { Stack, Token } from 'aws-cdk-lib';
import { CfnExperimentTemplate } from 'aws-cdk-lib/aws-fis';
import { Effect, PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { acknowledge } from './nag.js';

/** The tag the operator puts on a staging runner's instance to make it the drill's target. */
export const SPOT_DRILL_TAG = { key: 'reprise-spot-drill', value: 'true' } as const;

/** The FIS action that sends a spot interruption warning, then interrupts the instance. */
export const SPOT_INTERRUPTION_ACTION = 'aws:ec2:send-spot-instance-interruptions';

/**
 * The spot drill: an AWS Fault Injection Service experiment template that interrupts one running spot
 * instance carrying {@link SPOT_DRILL_TAG}, with EC2's two-minute warning, so the operator sees the signal,
 * the decision and the re-run before a real reclaim. The template does nothing until an experiment is
 * started from it (`aws fis start-experiment`).
 */
export class SpotDrill extends Construct {
  public readonly template: CfnExperimentTemplate;
  /** The role FIS assumes: it may send spot interruptions to tagged instances, and nothing else. */
  public readonly role: Role;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    const { partition } = Stack.of(this);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('fis.amazonaws.com'),
      description: 'reprise spot drill: FIS sends a spot interruption to instances tagged reprise-spot-drill=true',
      inlinePolicies: {
        SpotInterruption: new PolicyDocument({
          statements: [
            new PolicyStatement({
              effect: Effect.ALLOW,
              actions: ['ec2:SendSpotInstanceInterruptions'],
              resources: [`arn:${partition}:ec2:*:*:instance/*`],
              conditions: { StringEquals: { [`aws:ResourceTag/${SPOT_DRILL_TAG.key}`]: SPOT_DRILL_TAG.value } },
            }),
            // FIS resolves the tagged targets with DescribeInstances, which takes no resource.
            new PolicyStatement({ effect: Effect.ALLOW, actions: ['ec2:DescribeInstances'], resources: ['*'] }),
          ],
        }),
      },
    });
    acknowledge(
      this.role,
      // cdk-nag names the partition as the template has it: a token unless the stack's environment fixed it.
      `AwsSolutions-IAM5[Resource::arn:${Token.isUnresolved(partition) ? '<AWS::Partition>' : partition}:ec2:*:*:instance/*]`,
      'The drill targets whichever spot instance carries the reprise-spot-drill=true tag: the condition on that tag, not the ARN, scopes the interruption.',
    );
    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'ec2:DescribeInstances supports no resource-level permission; FIS needs it to resolve the tagged targets, and it only reads.',
    );
    this.template = new CfnExperimentTemplate(this, 'Template', {
      description: 'reprise spot drill: interrupt one running spot instance tagged reprise-spot-drill=true',
      roleArn: this.role.roleArn,
      stopConditions: [{ source: 'none' }],
      targets: {
        TaggedSpotRunner: {
          resourceType: 'aws:ec2:spot-instance',
          resourceTags: { [SPOT_DRILL_TAG.key]: SPOT_DRILL_TAG.value },
          filters: [{ path: 'State.Name', values: ['running'] }],
          selectionMode: 'COUNT(1)',
        },
      },
      actions: {
        InterruptSpotRunner: {
          actionId: SPOT_INTERRUPTION_ACTION,
          description: 'the two-minute spot interruption warning, then the interruption',
          parameters: { durationBeforeInterruption: 'PT2M' },
          targets: { SpotInstances: 'TaggedSpotRunner' },
        },
      },
      tags: { Name: 'reprise-spot-drill' },
    });
  }
}
