import type { Env } from './environment.js';
import { reconcilerSettings, deploymentSettings, workerSettings } from './env.js';
import { intakeSettings, obsSettings } from './function-settings.js';
import type { FunctionName } from './setting.js';
import { type SettingName, SETTING_NAMES, settingOf } from './settings-schema.js';
import { signalIntakeSettings, signalSettings } from './signal-settings.js';

/** A process of reprise: a deployed function, or the local runtime (`npm start`), which runs every part in one. */
export type ProcessName = FunctionName | 'local';

/** Every process, the deployed functions first. */
export const PROCESS_NAMES: readonly ProcessName[] = [
  'worker',
  'reconciler',
  'intake',
  'signalIntake',
  'ec2Signal',
  'local',
];

/**
 * Which settings each process reads, in one table: the readers it calls once at start (each
 * function its own and the log and metrics settings; the local runtime all of them). The
 * settings table's `readBy` and `local` name those settings, and the construct hands each
 * function exactly its `readBy`: test/config/process-settings.test.ts holds the readers to it.
 * A function imports its readers from their modules, so its bundle carries no other's.
 */
export const PROCESS_SETTINGS = {
  worker: [workerSettings, obsSettings],
  reconciler: [reconcilerSettings, obsSettings],
  intake: [intakeSettings, obsSettings],
  signalIntake: [signalIntakeSettings, obsSettings],
  ec2Signal: [signalSettings, obsSettings],
  local: [deploymentSettings],
} as const satisfies Record<ProcessName, readonly ((env: Env) => unknown)[]>;

/** The settings a process reads, as the settings table declares them (`readBy`, or `local`). */
export function settingsReadBy(process: ProcessName): SettingName[] {
  return SETTING_NAMES.filter((name) => {
    const s = settingOf(name);
    return process === 'local' ? s.local : s.readBy.includes(process);
  });
}
