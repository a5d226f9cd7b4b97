import type { Construct } from 'constructs';
import { RepriseFunction } from './reprise-function.js';
import { commonProps, type FunctionDeps, grantResources } from './deps.js';
import { TIMEOUTS } from './timeouts.js';

/** The webhook intake: verifies deliveries, records what it must and enqueues completed runs. */
export class IntakeFunction extends RepriseFunction {
  public constructor(scope: Construct, id: string, deps: FunctionDeps) {
    super(scope, id, {
      ...commonProps('intake', deps),
      description: 'reprise: verifies GitHub webhook deliveries and enqueues completed runs',
      noDeadLetterQueueReason:
        'Invoked synchronously by the HTTP API, where a Lambda DLQ never applies: a failure answers 5xx to GitHub, ' +
        'which keeps the failed delivery listed for redelivery (POST /app/hook/deliveries/{id}/attempts).',
      timeout: TIMEOUTS.intake,
      memorySize: 256,
    });
    deps.eventBus.grantPutEventsTo(this.role);
    grantResources('intake', deps, this.role);
    deps.workQueue.grantSendMessages(this.role);
  }
}
