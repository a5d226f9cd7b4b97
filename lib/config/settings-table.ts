import { ALARM_SETTINGS } from './settings/alarms.js';
import { BREAKER_SETTINGS } from './settings/breaker.js';
import { DECISION_SETTINGS } from './settings/decision.js';
import { ENDPOINT_SETTINGS } from './settings/endpoints.js';
import { GITHUB_SETTINGS } from './settings/github.js';
import { LOCAL_SETTINGS } from './settings/local.js';
import { OPERATION_SETTINGS } from './settings/operations.js';
import { PACE_SETTINGS } from './settings/pace.js';
import { RECONCILER_SETTINGS } from './settings/reconciler.js';
import { RECOVERY_SETTINGS } from './settings/recovery.js';
import { SIGNAL_SETTINGS } from './settings/signals.js';
import { WORKER_SETTINGS } from './settings/worker.js';

export { MAX_ATTEMPTS_LIMIT } from './settings/decision.js';
export { MAX_BUDGET_PER_HOUR } from './settings/pace.js';

/**
 * Every setting of reprise, declared once: where it can be set (environment variable, construct
 * prop, CDK context key, `.github/reprise.yml` key), its default, its parser and which deployed
 * functions read it. The local runtime, the Lambda functions, the construct, the context reader,
 * the repository config and the configuration tables of the docs all derive from this table.
 * The rows live by area in `settings/`; their order here is the order of the docs' tables.
 * Data only: the signal functions bundle it, so it imports nothing heavy.
 */
export const SETTINGS = {
  ...GITHUB_SETTINGS,
  ...DECISION_SETTINGS,
  ...RECOVERY_SETTINGS,
  ...PACE_SETTINGS,
  ...BREAKER_SETTINGS,
  ...SIGNAL_SETTINGS,
  ...RECONCILER_SETTINGS,
  ...WORKER_SETTINGS,
  ...ENDPOINT_SETTINGS,
  ...OPERATION_SETTINGS,
  ...LOCAL_SETTINGS,
  ...ALARM_SETTINGS,
} as const;
