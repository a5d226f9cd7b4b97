import { describe, expect, it } from 'vitest';
import { parseScopedSecrets, parseSignalScope, scopeAllows, scopeTag } from '../../lib/config/signal-scope.js';
import { scopeWarning } from '../../lib/config/signal-settings.js';

describe('signal secret scopes', () => {
  it.each<[string, boolean]>([
    ['group:Default', true],
    ['group:spot fleet', true],
    ['acme,group:spot fleet', false],
    ['installation:4,group:Default', false],
    ['acme', false],
    ['*', false],
  ])('a group:<name> scope with no owner is warned of, as it crosses organisations: %s → %s', (raw, warns) => {
    const warning = scopeWarning(parseSignalScope(raw, 'SIGNAL_SCOPE'));
    expect(warning !== undefined).toBe(warns);
    if (warning) expect(warning).toMatch(/names no owner: .* in every installation, across organisations/);
  });

  it('a scope’s tag is the same for its owners in any order and differs for another scope', () => {
    expect(scopeTag(['acme', 'installation:4'])).toBe(scopeTag(['installation:4', 'acme']));
    expect(scopeTag(['acme'])).not.toBe(scopeTag(['mallory']));
    expect(scopeTag(['*'])).not.toBe(scopeTag(['acme']));
    expect(scopeTag(['group:spot fleet'])).toMatch(/^[0-9a-f]{20}$/);
  });

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

  it('a runner group scope is one `group:<name>` (spaces kept, as GitHub names groups), alone or beside owners; two groups or a bad name are refused', () => {
    expect(parseSignalScope('group:spot fleet', 'S')).toEqual(['group:spot fleet']);
    expect(parseSignalScope('group: GPU , Acme', 'S')).toEqual(['acme', 'group:GPU']);
    expect(() => parseSignalScope('group:a,group:b', 'S')).toThrow(/at most one group:<name>/);
    expect(() => parseSignalScope('group:', 'S')).toThrow(/expected group:<runner group name>, got "group:"/);
    expect(() => parseSignalScope('group:x\u0000', 'S')).toThrow(/expected group:<runner group name>/);
    expect(() => parseSignalScope('*,group:spot', 'S')).toThrow(/stands alone/);
    expect(parseScopedSecrets('s-g group:spot fleet', 'SIGNAL_SECRETS')).toEqual([
      { secret: 's-g', scope: ['group:spot fleet'] },
    ]);
  });

  const ACME_SPOT = { login: 'acme', installationId: 7, runnerGroup: 'spot fleet' };
  it.each([
    ['group:spot fleet', ACME_SPOT, true, 'a job of its group counts'],
    ['group:spot fleet', { ...ACME_SPOT, runnerGroup: 'Default' }, false, 'a job of another group does not'],
    ['group:spot fleet', { ...ACME_SPOT, runnerGroup: 'Spot Fleet' }, false, 'the name is matched as GitHub spells it'],
    ['group:spot fleet', { ...ACME_SPOT, runnerGroup: null }, false, 'a job of no known group does not'],
    ['group:spot fleet', { login: 'acme', installationId: 7 }, false, 'a lookup that names no group does not'],
    [
      'group:spot fleet',
      { login: 'other', installationId: 8, runnerGroup: 'spot fleet' },
      true,
      'alone, the group of any owner counts',
    ],
    ['acme,group:spot fleet', ACME_SPOT, true, 'with owners, the group of an owner in scope counts'],
    [
      'acme,group:spot fleet',
      { login: 'other', installationId: 8, runnerGroup: 'spot fleet' },
      false,
      "another owner's group of the same name does not",
    ],
    [
      'installation:7,group:spot fleet',
      { ...ACME_SPOT, login: 'renamed' },
      true,
      'an installation id names the owner too',
    ],
    ['acme,group:spot fleet', { ...ACME_SPOT, runnerGroup: 'Default' }, false, "an owner's other group does not"],
    ['acme', { ...ACME_SPOT, runnerGroup: 'Default' }, true, 'an owner scope counts in every group of the owner'],
    ['*', { login: 'other', installationId: null, runnerGroup: null }, true, '`*` counts everywhere'],
  ])('scope %j and job %j → counts: %s (%s)', (scope, job, counts, _why) => {
    expect(scopeAllows(parseSignalScope(scope, 'S'), job)).toBe(counts);
  });

  it('SIGNAL_SECRETS holds one `<secret> <scope>` a line; a bad entry is named without showing the secret', () => {
    expect(parseScopedSecrets('s-a acme\n# comment\n\ns-b installation:42,other', 'SIGNAL_SECRETS')).toEqual([
      { secret: 's-a', scope: ['acme'] },
      { secret: 's-b', scope: ['installation:42', 'other'] },
    ]);
    expect(() => parseScopedSecrets('lonely-secret', 'SIGNAL_SECRETS')).toThrow(/entry 1: expected `<secret> <scope>`/);
    expect(() => parseScopedSecrets('lonely-secret', 'SIGNAL_SECRETS')).not.toThrow(/lonely-secret/);
  });
});
