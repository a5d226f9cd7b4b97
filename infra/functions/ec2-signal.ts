import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EksRunnerAccess } from '../eks-access.js';
import { Ec2SignalRules } from '../ec2-signals.js';
import { RepriseFunction } from './reprise-function.js';
import { acknowledge } from '../nag.js';
import { commonProps, type FunctionDeps, grantResources } from './deps.js';
import { TIMEOUTS } from './timeouts.js';

export interface Ec2SignalDeps extends FunctionDeps {
  /** Takes the EC2 events it could not: from its rules and from Lambda's async retries. */
  readonly deadLetterQueue: Queue;
}

/** Records EC2 interruptions and terminations as runner signals, invoked by its EventBridge rules. */
export class Ec2SignalFunction extends RepriseFunction {
  public readonly rules: Ec2SignalRules;
  /** The access entries of the configured EKS clusters, when there are any. */
  public readonly eksAccess?: EksRunnerAccess;

  public constructor(scope: Construct, id: string, deps: Ec2SignalDeps) {
    super(scope, id, {
      ...commonProps('ec2Signal', deps),
      description: 'reprise: records EC2 interruptions and terminations as runner signals',
      noDeadLetterQueueReason:
        'Invoked asynchronously by EventBridge and configured with an on-failure destination (the successor of the ' +
        'Lambda DLQ, with the error and request context) to the signal dead-letter queue; both at once would duplicate.',
      timeout: TIMEOUTS.ec2Signal,
      memorySize: 256,
      // The EC2 client loads in about 250 ms from the runtime's SDK and about 75 ms bundled and
      // tree-shaken: a spot warning gives two minutes, so this function always bundles its SDK.
      bundleAwsSdk: true,
      asyncFailureQueue: deps.deadLetterQueue,
    });
    grantResources('ec2Signal', deps, this.role);
    // Early recovery's requests go to the worker, the one function that calls GitHub.
    deps.workQueue.grantSendMessages(this.role);
    // Reads the runner-name tags of the interrupted instance.
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'ec2:DescribeInstances supports no resource-level permissions (the Service Authorization Reference lists ' +
        'resource "*" only); the action is read-only and granted to the EC2 signal function alone.',
    );
    // Lists the runner pods of an interrupted node on the configured EKS clusters.
    const clusters = deps.props.eksClusters ?? [];
    if (clusters.length > 0) {
      this.eksAccess = new EksRunnerAccess(this, 'EksAccess', { role: this.role, clusters });
    }
    // Beside the function, not inside it: the rules keep the logical ids a deployed stack has.
    this.rules = new Ec2SignalRules(scope, 'Ec2Signals', {
      handler: this.function,
      deadLetterQueue: deps.deadLetterQueue,
    });
  }
}
