import { describe, expect, it } from 'vitest';
import type { Env } from '../../lib/config/environment.js';
import { PROCESS_NAMES, PROCESS_SETTINGS, settingsReadBy } from '../../lib/config/process-settings.js';
import { FUNCTION_NAMES } from '../../lib/config/setting.js';
import { envOf, SETTING_NAMES, settingOf } from '../../lib/config/settings-schema.js';

/** The variables a process's readers look up, each reader given an environment that records every read. */
function variablesRead(readers: readonly ((env: Env) => unknown)[]): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as Env, {
    get: (_target, key) => {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  for (const reader of readers) reader(env);
  return [...read].sort();
}

describe('the settings each process reads: one table', () => {
  it('names every deployed function and the local runtime', () => {
    expect(Object.keys(PROCESS_SETTINGS).sort()).toEqual([...PROCESS_NAMES].sort());
    expect(PROCESS_NAMES.filter((p) => p !== 'local')).toEqual([...FUNCTION_NAMES]);
  });

  it.each(FUNCTION_NAMES)(
    '%s: its readers read every setting the table hands it, and nothing the construct ever sets for another',
    (process) => {
      const table = settingsReadBy(process).map((name) => envOf(name));
      const read = variablesRead(PROCESS_SETTINGS[process]);
      expect(table.filter((v) => !read.includes(v))).toEqual([]);
      // Beyond its own, a function may look up only what no function is handed (the local runtime's own).
      const handedToSome = new Set(FUNCTION_NAMES.flatMap((fn) => settingsReadBy(fn).map((name) => envOf(name))));
      expect(read.filter((v) => !table.includes(v) && handedToSome.has(v))).toEqual([]);
    },
  );

  it('the local runtime: its reader reads settings only, and the decision settings the table gives it', () => {
    const settingVariables = new Set(SETTING_NAMES.flatMap((name) => settingOf(name).env ?? []));
    const read = variablesRead(PROCESS_SETTINGS.local);
    expect(read.filter((v) => !settingVariables.has(v))).toEqual([]);
    for (const name of ['maxAttempts', 'pacePerMinute', 'signalWindowBefore', 'runnerTagKeys'] as const) {
      expect(settingsReadBy('local')).toContain(name);
      expect(read).toContain(envOf(name));
    }
  });
});
