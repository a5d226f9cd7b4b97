import { describe, expect, it } from 'vitest';
import { LOCAL_SETTINGS } from '../../../lib/config/settings/local.js';
import { fromText, rowsOf } from './rows.js';

describe("the local runtime's listeners", () => {
  it('listens on the loopback interface by default, on a TCP port', () => {
    expect(LOCAL_SETTINGS.host.default).toBe('127.0.0.1');
    expect(fromText(LOCAL_SETTINGS.port, '0')).toBe(0);
    expect(() => fromText(LOCAL_SETTINGS.port, '65536')).toThrow();
  });

  it('is read by the local runtime only', () => {
    for (const { name, s } of rowsOf(LOCAL_SETTINGS)) {
      expect(s.local, name).toBe(true);
      expect(s.readBy, name).toEqual([]);
    }
  });
});
