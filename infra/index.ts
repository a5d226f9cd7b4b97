// The package's entry: the construct, its props and the stack that deploys it on its own.
export { Reprise, TIMEOUTS, type RepriseAlarmThresholds, type RepriseProps, WebhookAccess } from './reprise.js';
export type { HttpApiAccessOptions } from './reprise.js';
export { RepriseStack, type RepriseStackProps } from './reprise-stack.js';
export { RUNNER_PRESET_NAMES, RUNNER_PRESETS, type RunnerPreset } from '../lib/config/runner-presets.js';
export { STACK_OUTPUT_NAMES, type StackOutputName } from '../lib/config/stack-outputs.js';
export { SPOT_DRILL_TAG, SPOT_INTERRUPTION_ACTION, SpotDrill } from './spot-drill.js';
