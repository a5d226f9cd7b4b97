import type { StrategyOptions } from '@octokit/auth-app';

/**
 * Installation tokens for auth-app, shared by an installation's REST and GraphQL clients so
 * both use one token exchange an hour. Kept 59 minutes, as auth-app's own cache does; a miss
 * answers '' (auth-app reads any falsy answer as a miss).
 */
export function installationTokenCache(
  now: () => number = Date.now,
  ttlMs = 59 * 60_000,
): NonNullable<StrategyOptions['cache']> {
  const entries = new Map<string, { readonly value: string; readonly until: number }>();
  return {
    get: (key: string) => {
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      entries.delete(key);
      return '';
    },
    set: (key: string, value: string) => void entries.set(key, { value, until: now() + ttlMs }),
  };
}
