import { describe, expect, it } from 'vitest';
import { MAX_BUDGET_PER_HOUR, PACE_SETTINGS } from '../../../lib/config/settings/pace.js';
import { fromText } from './rows.js';

describe('the pace settings', () => {
  it('bounds the hourly budget by one window item', () => {
    const s = PACE_SETTINGS.retryBudgetPerHour;
    expect(fromText(s, String(MAX_BUDGET_PER_HOUR))).toBe(MAX_BUDGET_PER_HOUR);
    expect(() => fromText(s, String(MAX_BUDGET_PER_HOUR + 1))).toThrow(/one window item holds the hour/);
  });

  it('lets a run wait one SQS deferral at most: 1 minute to 12 hours, in seconds', () => {
    const s = PACE_SETTINGS.maxWait;
    expect(s.unit).toBe('seconds');
    expect(fromText(s, '60')).toBe(60);
    expect(() => fromText(s, '59')).toThrow();
    expect(() => fromText(s, String(12 * 3600 + 1))).toThrow(/one SQS deferral/);
  });
});
