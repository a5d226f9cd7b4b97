import { describe, expect, it } from 'vitest';
import {
  applyConfig,
  BUILT_IN_DEFAULTS,
  fieldValue,
  IGNORE_JOBS_LIMITS,
  REPO_SETTING_NAMES,
  repoFieldOf,
} from '../../lib/config/repo-settings.js';
import { settingOf } from '../../lib/config/settings-schema.js';
import { ConfigError, PatternError } from '../../lib/errors.js';

describe('the repository settings, derived from the schema', () => {
  it('every setting with a repository key, and only those', () => {
    const keys = REPO_SETTING_NAMES.map((n) => settingOf(n).repoKey);
    expect(keys).toContain('max_attempts');
    expect(keys).toContain('extra_patterns');
    expect(keys.every((k) => typeof k === 'string')).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('each names the RepoConfig field it fills, and the built-in defaults fill those fields', () => {
    for (const name of REPO_SETTING_NAMES) {
      const field = repoFieldOf(name);
      if (!settingOf(name).repoOmitsDefault) expect(BUILT_IN_DEFAULTS, name).toHaveProperty(field);
    }
    expect(repoFieldOf('maxAttempts')).toBe('maxAttempts');
  });
});

describe('fieldValue: a file value as its field holds it', () => {
  it('typed values only: a quoted number or "yes" is refused for the keys that never took them', () => {
    expect(fieldValue('maxAttempts', 3)).toBe(3);
    expect(() => fieldValue('maxAttempts', '3')).toThrow(/^max_attempts: expected a whole number/);
    expect(() => fieldValue('dryRun', 'yes')).toThrow('dry_run: expected true or false, got "yes"');
  });

  it('stuck_after and max_requeues still read a quoted number', () => {
    expect(fieldValue('stuckAfter', '30')).toBe(30);
    expect(fieldValue('maxRequeues', '2')).toBe(2);
  });

  it('an empty key (null) keeps the layer below for workflows and ignore_jobs, and clears extra_patterns', () => {
    expect(fieldValue('workflows', null)).toBeUndefined();
    expect(fieldValue('ignoreJobs', null)).toBeUndefined();
    expect(fieldValue('extraPatterns', null)).toEqual([]);
  });

  it('extra_patterns are compiled; one that does not compile is a PatternError naming its line', () => {
    const [p] = fieldValue('extraPatterns', ['Runner Vanished']) as { test: (s: string) => boolean }[];
    expect(p!.test('the runner vanished mid-job')).toBe(true);
    expect(() => fieldValue('extraPatterns', ['ok', '(unclosed'])).toThrow(PatternError);
  });

  it('ignore_jobs is held to its limits, each refusal saying which', () => {
    const { count, length } = IGNORE_JOBS_LIMITS;
    expect(
      fieldValue(
        'ignoreJobs',
        Array.from({ length: count }, (_, i) => `j${i}`),
      ),
    ).toHaveLength(count);
    expect(() =>
      fieldValue(
        'ignoreJobs',
        Array.from({ length: count + 1 }, (_, i) => `j${i}`),
      ),
    ).toThrow(new ConfigError(`ignore_jobs: ${count + 1} globs, more than ${count}`));
    expect(() => fieldValue('ignoreJobs', ['x'.repeat(length + 1)])).toThrow(
      new ConfigError(`ignore_jobs: a glob of ${length + 1} characters, more than ${length}`),
    );
  });
});

describe('applyConfig', () => {
  it('sets the keys given and keeps the rest of the base', () => {
    const out = applyConfig(BUILT_IN_DEFAULTS, { max_attempts: 4, dry_run: true });
    expect(out).toEqual({ ...BUILT_IN_DEFAULTS, maxAttempts: 4, dryRun: true });
  });

  it('an unknown key is refused, every one named', () => {
    expect(() => applyConfig(BUILT_IN_DEFAULTS, { max_atempts: 4, colour: 'red' })).toThrow(
      new ConfigError('unknown key(s): max_atempts, colour'),
    );
  });

  it('the text-only cap is lowered to max_attempts, never above it', () => {
    const out = applyConfig(BUILT_IN_DEFAULTS, { max_attempts: 2, text_only_max_attempts: 5 });
    expect(out.textOnlyMaxAttempts).toBe(2);
  });

  it("the layer below's note (why it was disabled) is not carried up", () => {
    const base = { ...BUILT_IN_DEFAULTS, disabledReason: 'broken file' };
    expect(applyConfig(base, {})).not.toHaveProperty('disabledReason');
  });
});
