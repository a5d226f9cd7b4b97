import { describe, expect, it } from 'vitest';
import { installationTokenCache } from '../../lib/github/installation-token-cache.js';

describe('installationTokenCache', () => {
  it('keeps a token for 59 minutes by default, then answers a miss', () => {
    let now = 0;
    const cache = installationTokenCache(() => now);
    cache.set('installation-1', 'ghs_one');
    now = 59 * 60_000 - 1;
    expect(cache.get('installation-1')).toBe('ghs_one');
    now = 59 * 60_000;
    expect(cache.get('installation-1')).toBe('');
  });

  it('a miss is the empty string (auth-app reads any falsy answer as a miss); keys are kept apart', () => {
    const cache = installationTokenCache(() => 0, 1000);
    expect(cache.get('installation-1')).toBe('');
    cache.set('installation-1', 'ghs_one');
    cache.set('installation-2', 'ghs_two');
    expect(cache.get('installation-1')).toBe('ghs_one');
    expect(cache.get('installation-2')).toBe('ghs_two');
  });

  it('a new token for a key replaces the old one and starts its own time', () => {
    let now = 0;
    const cache = installationTokenCache(() => now, 1000);
    cache.set('k', 'old');
    now = 900;
    cache.set('k', 'new');
    now = 1500;
    expect(cache.get('k')).toBe('new');
    now = 1900;
    expect(cache.get('k')).toBe('');
  });
});
