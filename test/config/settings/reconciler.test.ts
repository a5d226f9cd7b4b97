import { describe, expect, it } from 'vitest';
import { RECONCILER_SETTINGS } from '../../../lib/config/settings/reconciler.js';
import { fromText } from './rows.js';

describe('the reconciler settings', () => {
  it('reports a job stuck within the 24 hours GitHub lets it queue', () => {
    const s = RECONCILER_SETTINGS.stuckAfter;
    expect(fromText(s, String(24 * 60))).toBe(24 * 60);
    expect(() => fromText(s, String(24 * 60 + 1))).toThrow(/24 hours queued/);
  });

  it('sweeps every 1 to 60 minutes when deployed, and gives a lost completion at least a minute', () => {
    expect(() => fromText(RECONCILER_SETTINGS.reconcileInterval, '61')).toThrow();
    expect(() => fromText(RECONCILER_SETTINGS.lostCompletionGrace, '59')).toThrow();
    expect(fromText(RECONCILER_SETTINGS.lostCompletionGrace, '60')).toBe(60);
  });
});
