/**
 * Each repository setting is declared once, in its schema entry: the `.github/reprise.yml` key,
 * the `RepoConfig` field, the default, the construct prop and the parser that refuses a bad
 * value all come from it. One row per entry a repository file may set.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { deploymentSettings } from '../../lib/config/env.js';
import { parseRepoConfig } from '../../lib/config/repo-config.js';
import {
  applyConfig,
  BUILT_IN_DEFAULTS,
  fieldValue,
  REPO_SETTING_NAMES,
  repoFieldOf,
} from '../../lib/config/repo-settings.js';
import { MAX_ATTEMPTS_LIMIT, SETTING_NAMES, settingOf } from '../../lib/config/settings-schema.js';
import { platformErrorsMode } from '../../lib/decide/decide.js';
import { earlyRecoveryMode } from '../../lib/decide/early-recovery.js';
import { maxRequeues, mergeQueueMode } from '../../lib/decide/merge-group.js';
import { ConfigError } from '../../lib/errors.js';
import type { RepoConfig } from '../../lib/model.js';
import type { RepriseProps } from '../../infra/props/reprise-props.js';
import { asProp, functionEnvironment, propAt, resolveProps, setAt } from '../../infra/props/resolve.js';

const rows = REPO_SETTING_NAMES.map((name) => ({
  name,
  s: settingOf(name),
  key: settingOf(name).repoKey as string,
  field: repoFieldOf(name),
}));

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A field as plain data: compiled patterns by their source. */
const shown = (v: unknown): unknown =>
  Array.isArray(v) ? v.map((x: unknown) => (typeof x === 'object' && x && 'source' in x ? x.source : x)) : v;

/** The decision's reading of a field a file left out (`RepoConfig` omits those defaults). */
const DECIDED: Partial<Record<keyof RepoConfig, (c: RepoConfig) => unknown>> = {
  mergeQueue: mergeQueueMode,
  maxRequeues,
  platformErrors: platformErrorsMode,
  earlyRecovery: earlyRecoveryMode,
};

const UNCAPPED: RepoConfig = { ...BUILT_IN_DEFAULTS, maxAttempts: MAX_ATTEMPTS_LIMIT };

/** Every repository setting's sample, through the props the construct exposes. */
const sampleProps: RepriseProps = (() => {
  const props: Record<string, unknown> = {};
  for (const { s } of rows) if (s.prop !== undefined) setAt(props, s.prop, asProp(s, s.sample));
  return props as RepriseProps;
})();

describe('each repository setting is declared once, in its schema entry', () => {
  it('the table gives a repository key to each setting the file reads, and each key once', () => {
    const keys = rows.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(SETTING_NAMES.map((n) => settingOf(n).repoKey).filter((k) => k !== undefined));
    expect(keys).toEqual(expect.arrayContaining(['max_attempts', 'merge_queue', 'max_requeues', 'report']));
  });

  describe.each(rows)('$key', ({ name, s, key, field }) => {
    it('has a sample other than its default', () => {
      expect(s.sample).toBeDefined();
      expect(s.sample).not.toEqual(s.default);
    });

    it("the file key sets the entry's field with the entry's parser", () => {
      // Under the highest cap, so the text-only cap is not lowered to the exact-signal one.
      const res = parseRepoConfig(UNCAPPED, stringify({ [key]: s.sample }));
      expect(res.error).toBeUndefined();
      expect(shown(res.config[field])).toEqual(shown(s.sample));
      expect(shown(res.config[field])).toEqual(shown(fieldValue(name, s.sample)));
    });

    it("the default is the entry's, applied once", () => {
      const want = s.default === undefined ? null : s.default;
      if (s.repoOmitsDefault) {
        expect(field in BUILT_IN_DEFAULTS).toBe(false);
        expect(DECIDED[field]?.(BUILT_IN_DEFAULTS)).toBe(want);
      } else {
        expect(shown(BUILT_IN_DEFAULTS[field])).toEqual(shown(want));
      }
      expect(deploymentSettings({}).defaults).toEqual(BUILT_IN_DEFAULTS);
    });

    it.each([{ not: 'a setting value' }, [1, 2]])(
      'a malformed value (%j) is refused by the entry’s parser, naming the key and the value',
      (bad) => {
        let message = '';
        try {
          s.parse.typed(bad, key);
        } catch (err) {
          message = (err as Error).message;
        }
        expect(message).toMatch(new RegExp(`^${key}: expected .+, got ${escaped(JSON.stringify(bad))}$`));
        expect(() => applyConfig(BUILT_IN_DEFAULTS, { [key]: bad })).toThrow(ConfigError);
        expect(() => applyConfig(BUILT_IN_DEFAULTS, { [key]: bad })).toThrow(message);
        expect(parseRepoConfig(BUILT_IN_DEFAULTS, stringify({ [key]: bad })).error).toBe(
          `.github/reprise.yml: ${message}`,
        );
      },
    );
  });

  describe.each(rows.filter((r) => r.s.prop !== undefined))(
    '$key: the construct prop $s.prop',
    ({ name, s, field }) => {
      it("defaults to the entry's default, and its value reaches the decision defaults through the entry's variable", () => {
        const prop = s.prop as string;
        const unset = resolveProps({});
        expect(unset.settings[name]).toEqual(s.default);
        expect(propAt(unset, prop)).toEqual(asProp(s, s.default));
        const set = resolveProps(sampleProps);
        expect(propAt(set, prop)).toEqual(asProp(s, s.sample));
        const env = functionEnvironment('worker', set.settings);
        expect(env[s.env as string]).toBeDefined();
        expect(shown(deploymentSettings(env).defaults[field])).toEqual(shown(s.sample));
      });
    },
  );
});
