import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { RepriseFunction } from './reprise-function.js';
import { acknowledge } from '../nag.js';
import { commonProps, type FunctionDeps, grantResources } from './deps.js';
import { TIMEOUTS } from './timeouts.js';

/** Repairs orphaned claims, missed webhook deliveries and lost completions, on a schedule. */
export class ReconcilerFunction extends RepriseFunction {
  /** Invokes the reconciler every `reconcileInterval`. */
  public readonly schedule: Rule;

  public constructor(scope: Construct, id: string, deps: FunctionDeps) {
    super(scope, id, {
      ...commonProps('reconciler', deps),
      description: 'reprise: repairs orphaned claims, missed webhook deliveries and lost completions',
      noDeadLetterQueueReason:
        'Invoked by a schedule with an empty event: a failed sweep loses nothing, because the next scheduled sweep ' +
        'resumes from the cursors it keeps in DynamoDB; failed sweeps are counted (SweepFailed) and alarmed.',
      timeout: TIMEOUTS.reconciler,
      memorySize: 256,
      // The next schedule is the retry; an overlapping async retry would only repeat the same sweep.
      asyncRetryAttempts: 0,
    });
    deps.eventBus.grantPutEventsTo(this.role);
    acknowledge(
      this.function,
      'Serverless-LambdaAsyncFailureDestination',
      'The reconciler is invoked asynchronously by a schedule whose events are empty: a failed invocation has ' +
        'nothing to deliver anywhere. Failed sweeps are counted (SweepFailed) and alarmed, and the next tick resumes.',
    );
    grantResources('reconciler', deps, this.role);
    deps.workQueue.grantSendMessages(this.role);
    // Beside the function, not inside it: the rule keeps the logical id a deployed stack has.
    this.schedule = new Rule(scope, 'ReconcileSchedule', {
      description: 'reprise: reconciler sweep',
      schedule: Schedule.rate(deps.props.reconcileInterval),
      targets: [new LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: Duration.minutes(4) })],
    });
    acknowledge(
      this.schedule,
      'Serverless-EventBusDLQ',
      'The target is a schedule tick with an empty event: an undelivered tick holds nothing to inspect or redrive, ' +
        'and the next tick a few minutes later does the same work from the cursors stored in DynamoDB.',
    );
  }
}
