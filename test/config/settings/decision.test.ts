import { describe, expect, it } from 'vitest';
import { DECISION_SETTINGS, MAX_ATTEMPTS_LIMIT } from '../../../lib/config/settings/decision.js';
import { fromText, rowsOf } from './rows.js';

describe('the decision defaults', () => {
  it('caps every attempt count at the 50 re-runs GitHub allows', () => {
    for (const name of ['maxAttempts', 'textOnlyMaxAttempts', 'repoMaxAttemptsCeiling'] as const) {
      const s = DECISION_SETTINGS[name];
      expect(fromText(s, String(MAX_ATTEMPTS_LIMIT))).toBe(MAX_ATTEMPTS_LIMIT);
      expect(() => fromText(s, String(MAX_ATTEMPTS_LIMIT + 1))).toThrow(/GitHub allows 50 re-runs/);
      expect(() => fromText(s, '0')).toThrow();
    }
  });

  it('gives text-only evidence fewer attempts than an exact signal by default', () => {
    expect(DECISION_SETTINGS.textOnlyMaxAttempts.default).toBeLessThan(DECISION_SETTINGS.maxAttempts.default);
  });

  it('declares a fail-closed rule for every key a repository file may set', () => {
    for (const { name, s } of rowsOf(DECISION_SETTINGS)) {
      if (s.repoKey !== undefined) expect(s.failClosed, name).toBeDefined();
    }
  });
});
