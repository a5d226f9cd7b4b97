import { describe, expect, it } from 'vitest';
import { parseScopedSecrets, parseSignalScope, scopeAllows } from '../../lib/config/signal-scope.js';
import { parseSignalSecretValue, signalSecretsFrom } from '../../lib/config/signal-settings.js';

describe('signal secret scopes', () => {
  it('a scope is `*` or owner logins (any case) and installation ids; anything else is refused naming the entry', () => {
    expect(parseSignalScope('*', 'S')).toEqual(['*']);
    expect(parseSignalScope(' Acme, installation:0042 ,acme', 'S')).toEqual(['acme', 'installation:42']);
    expect(() => parseSignalScope('', 'S')).toThrow(/empty scope/);
    expect(() => parseSignalScope('*,acme', 'S')).toThrow(/stands alone/);
    expect(() => parseSignalScope('acme/repo', 'S')).toThrow(/"acme\/repo"/);
  });

  it("a signal counts for a job whose owner or installation is in its scope; EC2's (no scope) for every job", () => {
    const scope = parseSignalScope('acme,installation:7', 'S');
    expect(scopeAllows(scope, { login: 'ACME', installationId: 1 })).toBe(true);
    expect(scopeAllows(scope, { login: 'other', installationId: 7 })).toBe(true);
    expect(scopeAllows(scope, { login: 'other', installationId: 8 })).toBe(false);
    expect(scopeAllows(undefined, { login: 'other', installationId: 8 })).toBe(true);
    expect(scopeAllows(['*'], { login: 'other', installationId: null })).toBe(true);
  });

  it('SIGNAL_SECRETS holds one `<secret> <scope>` a line; a bad entry is named without showing the secret', () => {
    expect(parseScopedSecrets('s-a acme\n# comment\n\ns-b installation:42,other', 'SIGNAL_SECRETS')).toEqual([
      { secret: 's-a', scope: ['acme'] },
      { secret: 's-b', scope: ['installation:42', 'other'] },
    ]);
    expect(() => parseScopedSecrets('lonely-secret', 'SIGNAL_SECRETS')).toThrow(/entry 1: expected `<secret> <scope>`/);
    expect(() => parseScopedSecrets('lonely-secret', 'SIGNAL_SECRETS')).not.toThrow(/lonely-secret/);
  });

  it('locally: SIGNAL_SECRETS with their scopes, then SIGNAL_SECRET with SIGNAL_SCOPE (every installation unless set)', () => {
    expect(signalSecretsFrom({ SIGNAL_SECRET: 'one' })).toEqual([{ secret: 'one', scope: ['*'] }]);
    expect(
      signalSecretsFrom({ SIGNAL_SECRET: 'one', SIGNAL_SCOPE: 'acme', SIGNAL_SECRETS: 'two installation:9' }),
    ).toEqual([
      { secret: 'two', scope: ['installation:9'] },
      { secret: 'one', scope: ['acme'] },
    ]);
  });

  it('deployed: the plain secret or {secret, previous} take the configured scope; "scoped" adds secrets of their own', () => {
    expect(parseSignalSecretValue('plain', 'signal secret', ['acme'])).toEqual([{ secret: 'plain', scope: ['acme'] }]);
    expect(
      parseSignalSecretValue(
        JSON.stringify({ secret: 'cur', previous: 'old', scoped: 'mine other-org' }),
        'signal secret',
        ['*'],
      ),
    ).toEqual([
      { secret: 'mine', scope: ['other-org'] },
      { secret: 'cur', scope: ['*'] },
      { secret: 'old', scope: ['*'] },
    ]);
    expect(parseSignalSecretValue(JSON.stringify({ scoped: 'only acme' }), 'signal secret', ['*'])).toEqual([
      { secret: 'only', scope: ['acme'] },
    ]);
    expect(() => parseSignalSecretValue('{"scoped": 3}', 'signal secret', ['*'])).toThrow(/"scoped" must be a string/);
  });
});
