import { describe, expect, it } from 'vitest';
import { RUNNER_PRESET_NAMES } from '../../../lib/config/runner-presets.js';
import { SIGNAL_SETTINGS } from '../../../lib/config/settings/signals.js';
import { fromText } from './rows.js';

describe('the runner signal settings', () => {
  it('takes only a known runner preset', () => {
    const s = SIGNAL_SETTINGS.runnerPreset;
    for (const name of RUNNER_PRESET_NAMES) expect(fromText(s, name)).toBe(name);
    expect(() => fromText(s, 'no-such-provisioner')).toThrow();
  });

  it('bounds the signed timestamp tolerance to 10 seconds .. 1 hour', () => {
    const s = SIGNAL_SETTINGS.signalTimestampTolerance;
    expect(fromText(s, '10')).toBe(10);
    expect(() => fromText(s, '9')).toThrow();
    expect(() => fromText(s, '3601')).toThrow();
  });

  it('lets the signal secret speak for everyone unless scoped', () => {
    expect(SIGNAL_SETTINGS.signalScope.default).toEqual(['*']);
  });
});
