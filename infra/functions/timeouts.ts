import { Duration } from 'aws-cdk-lib';
import { DECISION_NEED_MS } from '../../lib/config/github-settings.js';

/**
 * Sized to the work: the intake answers GitHub (10 s budget) without calling out; the worker waits
 * on GitHub. The worker takes new messages of a batch while a decision's need is left, so its
 * timeout is two such needs (every request's timeout times the round trips of a decision); the
 * queue's visibility timeout is six times the worker's (`WorkQueues`).
 */
export const TIMEOUTS = {
  intake: Duration.seconds(5),
  worker: Duration.millis(2 * DECISION_NEED_MS),
  ec2Signal: Duration.seconds(10),
  signalIntake: Duration.seconds(5),
  reconciler: Duration.minutes(2),
} as const;
