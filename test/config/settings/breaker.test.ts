import { describe, expect, it } from 'vitest';
import { BREAKER_SETTINGS } from '../../../lib/config/settings/breaker.js';
import { fromText } from './rows.js';

describe('the breaker settings', () => {
  it('takes the lost share as a percent of 1 to 100', () => {
    const s = BREAKER_SETTINGS.breakerLostSharePercent;
    expect(fromText(s, '100')).toBe(100);
    expect(() => fromText(s, '0')).toThrow();
    expect(() => fromText(s, '101')).toThrow();
  });

  it('turns off with 0 outcomes, and keeps its window and cool-down in seconds', () => {
    expect(fromText(BREAKER_SETTINGS.breakerMinOutcomes, '0')).toBe(0);
    expect(BREAKER_SETTINGS.breakerWindow.unit).toBe('seconds');
    expect(BREAKER_SETTINGS.breakerCoolDown.unit).toBe('seconds');
  });
});
