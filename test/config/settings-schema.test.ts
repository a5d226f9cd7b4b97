import { describe, expect, it } from 'vitest';
import {
  contextDefaultText,
  convertTime,
  defaultText,
  envOf,
  fromEnv,
  SETTING_NAMES,
  SETTINGS,
  settingOf,
  toEnvValue,
} from '../../lib/config/settings-schema.js';
import { ConfigError } from '../../lib/errors.js';

describe('settingOf and SETTING_NAMES', () => {
  it('name every entry of the table, each once, in its order', () => {
    expect(SETTING_NAMES).toEqual(Object.keys(SETTINGS));
    expect(settingOf('maxAttempts')).toBe(SETTINGS.maxAttempts);
  });
});

describe('envOf', () => {
  it("gives a setting's environment variable", () => {
    expect(envOf('maxAttempts')).toBe('MAX_ATTEMPTS');
    expect(envOf('logLevel')).toBe('POWERTOOLS_LOG_LEVEL');
  });

  it('refuses a setting no environment sets, naming it', () => {
    expect(() => envOf('alarmEmail')).toThrow('alarmEmail has no environment variable');
  });
});

describe('fromEnv', () => {
  it('reads the value through the parser', () => {
    expect(fromEnv({ MAX_ATTEMPTS: '7' }, 'maxAttempts')).toBe(7);
    expect(fromEnv({ IGNORE_JOBS: 'lint, deploy-*' }, 'ignoreJobs')).toEqual(['lint', 'deploy-*']);
    expect(fromEnv({ POWERTOOLS_LOG_LEVEL: 'debug' }, 'logLevel')).toBe('DEBUG');
  });

  it.each([
    ['unset', {}],
    ['empty', { MAX_ATTEMPTS: '' }],
    ['blank', { MAX_ATTEMPTS: '  ' }],
  ])('gives the default when the variable is %s', (_label, env) => {
    expect(fromEnv(env, 'maxAttempts')).toBe(3);
  });

  it('gives undefined for an unset setting without a default', () => {
    expect(fromEnv({}, 'runnerPreset')).toBeUndefined();
  });

  it('refuses a bad value with an error naming the variable and the value', () => {
    const read = () => fromEnv({ MAX_ATTEMPTS: '51' }, 'maxAttempts');
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/^MAX_ATTEMPTS: expected a whole number from 1 to 50 .*got "51"$/);
  });

  it('refuses a setting no environment sets', () => {
    expect(() => fromEnv({ alarmEmail: 'a@b.c' }, 'alarmEmail' as never)).toThrow('has no environment variable');
  });
});

describe('toEnvValue', () => {
  it("joins a list with the setting's separator, and writes a scalar as text", () => {
    expect(toEnvValue(settingOf('ignoreJobs'), ['a', 'b'])).toBe('a,b');
    expect(toEnvValue(settingOf('extraPatterns'), ['x+', 'y'])).toBe('x+\ny');
    expect(toEnvValue(settingOf('maxAttempts'), 4)).toBe('4');
    expect(toEnvValue(settingOf('dryRun'), true)).toBe('true');
  });

  it('round-trips through fromEnv', () => {
    const s = settingOf('extraPatterns');
    const env = { EXTRA_PATTERNS: toEnvValue(s, ['runner .* evicted', 'node \\S+ drained']) };
    expect(fromEnv(env, 'extraPatterns')).toEqual(['runner .* evicted', 'node \\S+ drained']);
  });
});

describe('convertTime', () => {
  it('converts between seconds, minutes and hours', () => {
    expect(convertTime(90, 'minutes', 'seconds')).toBe(5400);
    expect(convertTime(21_600, 'seconds', 'minutes')).toBe(360);
    expect(convertTime(2, 'hours', 'minutes')).toBe(120);
    expect(convertTime(30, 'seconds', 'minutes')).toBe(0.5);
  });
});

describe('defaultText and contextDefaultText', () => {
  it('show the declared text, a plain default, a list, or none', () => {
    expect(defaultText(settingOf('repositoryAllowList'))).toBe('all');
    expect(defaultText(settingOf('maxAttempts'))).toBe('3');
    expect(defaultText(settingOf('runnerTagKeys'))).toBe('none');
    expect(defaultText({ ...settingOf('ignoreJobs'), defaultText: undefined, default: ['a', 'b'] })).toBe('a, b');
    expect(defaultText({ ...settingOf('alarmEmail'), defaultText: undefined, default: undefined })).toBe('none');
  });

  it("show a time in the context key's unit where it differs", () => {
    expect(defaultText(settingOf('maxWait'))).toBe('21600');
    expect(contextDefaultText(settingOf('maxWait'))).toBe('360');
    expect(contextDefaultText(settingOf('maxAttempts'))).toBe('3');
  });
});
