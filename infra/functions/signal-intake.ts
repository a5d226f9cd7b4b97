import type { Construct } from 'constructs';
import { RepriseFunction } from './reprise-function.js';
import { commonProps, type FunctionDeps, grantResources } from './deps.js';
import { TIMEOUTS } from './timeouts.js';

/** Records runner signals posted by external agents (`POST /signals`). */
export class SignalIntakeFunction extends RepriseFunction {
  public constructor(scope: Construct, id: string, deps: FunctionDeps) {
    super(scope, id, {
      ...commonProps('signalIntake', deps),
      description: 'reprise: records runner signals posted by external agents',
      noDeadLetterQueueReason:
        'Invoked synchronously by the HTTP API, where a Lambda DLQ never applies: a failure answers 5xx to the ' +
        'posting agent, which owns the retry.',
      timeout: TIMEOUTS.signalIntake,
      memorySize: 256,
    });
    grantResources('signalIntake', deps, this.role);
    // Early recovery's requests go to the worker, the one function that calls GitHub.
    deps.workQueue.grantSendMessages(this.role);
  }
}
