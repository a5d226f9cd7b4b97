import { describe, expect, it } from 'vitest';
import { RECOVERY_SETTINGS } from '../../../lib/config/settings/recovery.js';
import { fromText, rowsOf } from './rows.js';

describe('the evidence and recovery defaults', () => {
  it("reads a repository file's boolean stale_check as off or the default", () => {
    const s = RECOVERY_SETTINGS.staleCheck;
    expect(s.parse.typed(false, 'stale_check')).toBe('off');
    expect(s.parse.typed(true, 'stale_check')).toBe('branch');
    expect(() => fromText(s, 'sometimes')).toThrow();
  });

  it('takes one extra pattern per line and a comma-separated list of ignored jobs', () => {
    expect(fromText(RECOVERY_SETTINGS.extraPatterns, 'a\nb c')).toEqual(['a', 'b c']);
    expect(fromText(RECOVERY_SETTINGS.ignoreJobs, 'all-green,deploy-*')).toEqual(['all-green', 'deploy-*']);
  });

  it('leaves early recovery off and re-runs platform errors unless told otherwise; each narrows when a file breaks', () => {
    expect(RECOVERY_SETTINGS.earlyRecovery.default).toBe('off');
    expect(RECOVERY_SETTINGS.platformErrors.default).toBe('rerun');
    for (const { name, s } of rowsOf(RECOVERY_SETTINGS)) expect(s.failClosed, name).toBeDefined();
  });
});
