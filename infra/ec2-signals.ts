import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** The EC2 events that can mean a runner was lost, as EventBridge names them. */
export const EC2_DETAIL_TYPES = {
  spotInterruption: 'EC2 Spot Instance Interruption Warning',
  rebalance: 'EC2 Instance Rebalance Recommendation',
  stateChange: 'EC2 Instance State-change Notification',
} as const;

/** Auto Scaling's own terminations, as EventBridge names them: exact, where a bare state change is not. */
export const ASG_DETAIL_TYPES = {
  terminateAction: 'EC2 Instance-terminate Lifecycle Action',
  terminateSuccessful: 'EC2 Instance Terminate Successful',
} as const;

/** Only these states of a state-change notification end a runner; pending/running/stopping would be noise. */
export const TERMINAL_STATES = ['shutting-down', 'terminated'] as const;

/** EventBridge delivery policy towards the signal function. */
export const SIGNAL_TARGET_RETRY = { retryAttempts: 4, maxEventAge: Duration.hours(1) } as const;

export interface Ec2SignalRulesProps {
  readonly handler: IFunction;
  /** Receives events EventBridge could not deliver after its retries. */
  readonly deadLetterQueue: Queue;
}

/**
 * Routes EC2 interruption and termination events on the default bus to the signal function. Two rules because a
 * `detail.state` filter would also drop the spot and rebalance events, which carry no state.
 */
export class Ec2SignalRules extends Construct {
  public readonly interruptionRule: Rule;
  public readonly terminationRule: Rule;
  public readonly autoScalingRule: Rule;

  public constructor(scope: Construct, id: string, props: Ec2SignalRulesProps) {
    super(scope, id);
    const target = new LambdaFunction(props.handler, {
      deadLetterQueue: props.deadLetterQueue,
      ...SIGNAL_TARGET_RETRY,
    });
    this.interruptionRule = new Rule(this, 'Interruption', {
      description: 'reprise: EC2 spot interruption warnings and rebalance recommendations',
      eventPattern: {
        source: ['aws.ec2'],
        detailType: [EC2_DETAIL_TYPES.spotInterruption, EC2_DETAIL_TYPES.rebalance],
      },
      targets: [target],
    });
    this.terminationRule = new Rule(this, 'Termination', {
      description: 'reprise: EC2 instances shutting down or terminated',
      eventPattern: {
        source: ['aws.ec2'],
        detailType: [EC2_DETAIL_TYPES.stateChange],
        detail: { state: [...TERMINAL_STATES] },
      },
      targets: [target],
    });
    // A state change alone counts with text strength (a job can shut its own runner down); a
    // termination Auto Scaling decided before it is what makes it exact.
    this.autoScalingRule = new Rule(this, 'AutoScalingTermination', {
      description: 'reprise: instances Auto Scaling decided to terminate',
      eventPattern: {
        source: ['aws.autoscaling'],
        detailType: [ASG_DETAIL_TYPES.terminateAction, ASG_DETAIL_TYPES.terminateSuccessful],
      },
      targets: [target],
    });
  }
}
