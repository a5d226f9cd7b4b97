import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { clampToCeiling, NO_CEILING } from '../../lib/config/repo-ceiling.js';
import { compileExtraPatterns } from '../../lib/classify/patterns.js';
import { config } from '../support/fixtures.js';

const defaults = config({ maxAttempts: 3, textOnlyMaxAttempts: 2 });
const patterns = compileExtraPatterns(['custom loss']);

describe('clampToCeiling', () => {
  it('a file within the ceiling stands as written', () => {
    const file = config({ maxAttempts: 5, textOnlyMaxAttempts: 4 });
    expect(clampToCeiling(file, defaults, { maxAttempts: 5, extraPatterns: true })).toEqual({
      config: file,
      clamped: [],
    });
  });

  it('max_attempts and text_only_max_attempts above the ceiling are lowered to it, each said in words', () => {
    const file = config({ maxAttempts: 20, textOnlyMaxAttempts: 10 });
    const { config: out, clamped } = clampToCeiling(file, defaults, { maxAttempts: 4, extraPatterns: true });
    expect(out.maxAttempts).toBe(4);
    expect(out.textOnlyMaxAttempts).toBe(4);
    expect(clamped).toEqual([
      'max_attempts 20 clamped to 4 (REPO_MAX_ATTEMPTS_CEILING)',
      'text_only_max_attempts 10 clamped to 4 (REPO_MAX_ATTEMPTS_CEILING)',
    ]);
  });

  it("the deployment's own defaults stand even above the ceiling: only what the file raised is lowered", () => {
    const high = config({ maxAttempts: 9, textOnlyMaxAttempts: 9 });
    expect(clampToCeiling(high, high, { maxAttempts: 4, extraPatterns: true })).toEqual({ config: high, clamped: [] });
  });

  it("with REPO_EXTRA_PATTERNS=false a file's patterns give way to the deployment's", () => {
    const file = config({ extraPatterns: patterns });
    const { config: out, clamped } = clampToCeiling(file, defaults, { maxAttempts: 50, extraPatterns: false });
    expect(out.extraPatterns).toBe(defaults.extraPatterns);
    expect(clamped).toEqual(['extra_patterns not used (REPO_EXTRA_PATTERNS=false)']);
    // No patterns in the file: nothing to say.
    expect(clampToCeiling(defaults, defaults, { maxAttempts: 50, extraPatterns: false }).clamped).toEqual([]);
  });

  it('text_only_max_attempts never ends above max_attempts', () => {
    const file = config({ maxAttempts: 8, textOnlyMaxAttempts: 3 });
    const { config: out } = clampToCeiling(file, config({ maxAttempts: 1, textOnlyMaxAttempts: 3 }), {
      maxAttempts: 2,
      extraPatterns: true,
    });
    expect(out.maxAttempts).toBe(2);
    expect(out.textOnlyMaxAttempts).toBe(2);
  });

  it('NO_CEILING leaves the built-in defaults and any file of up to 50 attempts alone', () => {
    const file = config({ maxAttempts: 50, textOnlyMaxAttempts: 50, extraPatterns: patterns });
    expect(clampToCeiling(file, BUILT_IN_DEFAULTS, NO_CEILING)).toEqual({ config: file, clamped: [] });
  });
});
