import { describe, expect, it } from 'vitest';
import { ALARM_SETTINGS } from '../../../lib/config/settings/alarms.js';
import { fromText, rowsOf } from './rows.js';

describe('the alarm thresholds', () => {
  it('are props of `alarms` only, read by no function', () => {
    for (const { name, s } of rowsOf(ALARM_SETTINGS)) {
      expect(s.prop, name).toMatch(/^alarms\./);
      expect(s.readBy, name).toEqual([]);
    }
  });

  it('take shares as percents', () => {
    expect(fromText(ALARM_SETTINGS.rerunShareThreshold, '100')).toBe(100);
    expect(() => fromText(ALARM_SETTINGS.rerunShareThreshold, '101')).toThrow();
  });
});
