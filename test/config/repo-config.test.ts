import fc from 'fast-check';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  applyConfig,
  BUILT_IN_DEFAULTS,
  globMatch,
  parseRepoConfig,
  type RepoConfig,
} from '../../lib/config/repo-config.js';
import { ConfigError } from '../../lib/errors.js';
import { config } from '../support/fixtures.js';

const sources = (c: RepoConfig): string[] => c.extraPatterns.map((r) => r.source);

describe('defaults', () => {
  it('the built-in defaults are the documented ones', () => {
    expect({ ...BUILT_IN_DEFAULTS, extraPatterns: sources(BUILT_IN_DEFAULTS) }).toEqual({
      enabled: true,
      workflows: null,
      maxAttempts: 3,
      textOnlyMaxAttempts: 2,
      extraPatterns: [],
      ignoreJobs: [],
      dryRun: false,
      rerunAllFallback: false,
      staleCheck: 'branch',
      report: 'log',
      requireExactSignal: false,
      stuckAfterMinutes: 15,
    });
  });

  it.each([
    ['an empty file', ''],
    ['comments only', '# reprise settings\n# nothing yet\n'],
    ['an empty document', '---\n'],
    ['null', 'null'],
  ])('%s gives the base settings and no error', (_label, text) => {
    const base = config({ maxAttempts: 4 });
    const res = parseRepoConfig(base, text);
    expect(res.config).toBe(base);
    expect(res.error).toBeUndefined();
  });

  it('keys the file leaves out keep the base layer’s values (org defaults under repo settings)', () => {
    const org = applyConfig(BUILT_IN_DEFAULTS, { max_attempts: 5, dry_run: true, ignore_jobs: ['all-green'] });
    const repo = parseRepoConfig(org, 'report: check_run\n');
    expect(repo.error).toBeUndefined();
    expect(repo.config).toMatchObject({ maxAttempts: 5, dryRun: true, ignoreJobs: ['all-green'], report: 'check_run' });
  });
});

describe('every key of issue 3’s configuration list is parsed', () => {
  it.each([
    ['enabled', 'enabled: false', { enabled: false }],
    ['workflows', 'workflows: [CI, "Release build"]', { workflows: ['CI', 'Release build'] }],
    ['workflows: null means every workflow', 'workflows:', { workflows: null }],
    ['max_attempts', 'max_attempts: 5', { maxAttempts: 5 }],
    ['max_attempts at GitHub’s limit of 50', 'max_attempts: 50', { maxAttempts: 50 }],
    ['text_only_max_attempts', 'text_only_max_attempts: 1', { textOnlyMaxAttempts: 1 }],
    ['ignore_jobs', 'ignore_jobs:\n  - all-green\n  - "lint (*"', { ignoreJobs: ['all-green', 'lint (*'] }],
    ['dry_run', 'dry_run: true', { dryRun: true }],
    ['rerun_all_fallback', 'rerun_all_fallback: true', { rerunAllFallback: true }],
    ['stale_check: all', 'stale_check: all', { staleCheck: 'all' }],
    ['stale_check: off', 'stale_check: "off"', { staleCheck: 'off' }],
    ['stale_check: pull_request', 'stale_check: pull_request', { staleCheck: 'pull_request' }],
    ['stale_check: false means off', 'stale_check: false', { staleCheck: 'off' }],
    ['stale_check: true means branch (the default)', 'stale_check: true', { staleCheck: 'branch' }],
    ['stale_check: branch', 'stale_check: branch', { staleCheck: 'branch' }],
    ['report: check_run', 'report: check_run', { report: 'check_run' }],
    ['report: log', 'report: log', { report: 'log' }],
    ['require_exact_signal', 'require_exact_signal: true', { requireExactSignal: true }],
    ['stuck_after', 'stuck_after: 30', { stuckAfterMinutes: 30 }],
  ] as const)('%s', (_key, text, expected) => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
    expect(res.error).toBeUndefined();
    expect(res.config).toEqual({ ...BUILT_IN_DEFAULTS, ...expected });
  });

  it('extra_patterns as a list: compiled, case-insensitive, comments and blanks skipped', () => {
    const res = parseRepoConfig(
      BUILT_IN_DEFAULTS,
      'extra_patterns:\n  - "# drained nodes"\n  - node .* drained\n  - ""\n  - Pod Evicted\n',
    );
    expect(res.error).toBeUndefined();
    expect(sources(res.config)).toEqual(['node .* drained', 'Pod Evicted']);
    expect(res.config.extraPatterns[0]?.test('NODE 7 DRAINED')).toBe(true);
    expect(res.config.extraPatterns[1]?.test('pod evicted by karpenter')).toBe(true);
  });

  it('extra_patterns as a block of lines: one regex per line, comments and blanks skipped', () => {
    const res = parseRepoConfig(
      BUILT_IN_DEFAULTS,
      'extra_patterns: |\n  # drained nodes\n  node .* drained\n\n  pod evicted\n',
    );
    expect(res.error).toBeUndefined();
    expect(sources(res.config)).toEqual(['node .* drained', 'pod evicted']);
  });

  it('text_only_max_attempts above max_attempts is lowered to max_attempts', () => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, 'max_attempts: 2\ntext_only_max_attempts: 4\n');
    expect(res.error).toBeUndefined();
    expect(res.config).toMatchObject({ maxAttempts: 2, textOnlyMaxAttempts: 2 });
  });

  it('a full file with every key', () => {
    const text = [
      'enabled: true',
      'workflows: [CI]',
      'max_attempts: 4',
      'text_only_max_attempts: 3',
      'extra_patterns: ["node .* drained"]',
      'ignore_jobs: [all-green]',
      'dry_run: true',
      'rerun_all_fallback: true',
      'stale_check: all',
      'report: check_run',
      'require_exact_signal: true',
      'stuck_after: 20',
    ].join('\n');
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
    expect(res.error).toBeUndefined();
    expect({ ...res.config, extraPatterns: sources(res.config) }).toEqual({
      enabled: true,
      workflows: ['CI'],
      maxAttempts: 4,
      textOnlyMaxAttempts: 3,
      extraPatterns: ['node .* drained'],
      ignoreJobs: ['all-green'],
      dryRun: true,
      rerunAllFallback: true,
      staleCheck: 'all',
      report: 'check_run',
      requireExactSignal: true,
      stuckAfterMinutes: 20,
    });
  });
});

/** Whether `c` does nothing `base` would not: no switch turned on, no cap raised, no job or workflow added. */
function noWider(c: RepoConfig, base: RepoConfig): boolean {
  if (!c.enabled) return true;
  return (
    base.enabled &&
    (c.dryRun || !base.dryRun) &&
    (c.requireExactSignal || !base.requireExactSignal) &&
    c.maxAttempts <= base.maxAttempts &&
    c.textOnlyMaxAttempts <= base.textOnlyMaxAttempts &&
    base.ignoreJobs.every((g) => c.ignoreJobs.includes(g)) &&
    (base.workflows === null || (c.workflows ?? []).every((w) => base.workflows!.includes(w))) &&
    (!c.rerunAllFallback || base.rerunAllFallback) &&
    c.extraPatterns === base.extraPatterns
  );
}

describe('malformed config: an error naming the fault, and settings no wider than the base', () => {
  it.each([
    ['a YAML syntax error', 'enabled: [true\nmax_attempts: 5', /reprise\.yml/],
    ['a list instead of a mapping', '- enabled\n- dry_run', /expected a mapping/],
    ['a scalar instead of a mapping', 'just text', /expected a mapping/],
    ['enabled not a boolean', 'enabled: "yes"', /^\.github\/reprise\.yml: enabled:/],
    ['max_attempts zero', 'max_attempts: 0', /max_attempts: expected a whole number from 1 to 50/],
    ['max_attempts above 50', 'max_attempts: 51', /max_attempts:/],
    ['max_attempts a fraction', 'max_attempts: 2.5', /max_attempts:/],
    ['max_attempts a string', 'max_attempts: "3"', /max_attempts:/],
    ['text_only_max_attempts zero', 'text_only_max_attempts: 0', /text_only_max_attempts:/],
    ['workflows a single string', 'workflows: CI', /workflows: expected a list of strings/],
    ['workflows with numbers', 'workflows: [1, 2]', /workflows:/],
    ['ignore_jobs a number', 'ignore_jobs: 3', /ignore_jobs:/],
    ['dry_run a number', 'dry_run: 1', /dry_run:/],
    ['rerun_all_fallback a string', 'rerun_all_fallback: "no"', /rerun_all_fallback:/],
    [
      'stale_check an unknown value',
      'stale_check: sometimes',
      /stale_check: expected one of off, branch, pull_request, all/,
    ],
    ['report an unknown value', 'report: email', /report: expected one of log, check_run/],
    ['require_exact_signal a string', 'require_exact_signal: maybe', /require_exact_signal:/],
    ['an unknown key', 'max_attempt: 3', /unknown key\(s\): max_attempt/],
    [
      'an invalid extra pattern',
      'extra_patterns:\n  - ok\n  - node (drained',
      /extra_patterns line 2: invalid regular expression \/node \(drained\//,
    ],
    [
      'an invalid pattern in a block of lines',
      'extra_patterns: |\n  ok\n  # c\n  node (drained\n',
      /extra_patterns line 3:/,
    ],
    ['extra_patterns a number', 'extra_patterns: 42', /extra_patterns:/],
    [
      'an extra pattern RE2 cannot take (a backreference)',
      'extra_patterns: |\n  (a+)+\\1\n',
      /extra_patterns line 1: .*backreferences and lookaround are not supported/,
    ],
    [
      'more ignore_jobs globs than the limit',
      `ignore_jobs: [${Array.from({ length: 51 }, (_, i) => `j${i}`).join(', ')}]`,
      /ignore_jobs: 51 globs, more than 50/,
    ],
    ['an ignore_jobs glob past the length limit', `ignore_jobs: ["${'*a'.repeat(101)}"]`, /more than 200/],
  ])('%s', (_label, text, error) => {
    const base = config({ maxAttempts: 4, dryRun: true });
    const res = parseRepoConfig(base, text);
    // Nothing in these files narrows: the runs are left alone.
    expect(res.config).toEqual({ ...base, enabled: false, disabledReason: expect.stringMatching(/left alone/) });
    expect(res.kept).toEqual([]);
    expect(res.error).toMatch(error);
  });

  it('a malformed file that asks for report: check_run keeps it, so its owners see the error there', () => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, 'report: check_run\nextra_patterns: |\n  (?=lookahead)\n');
    expect(res.error).toMatch(/extra_patterns line 1/);
    expect(res.config).toMatchObject({ report: 'check_run', enabled: false });
  });

  it('one bad key keeps only what narrows: dry_run: true holds beside an invalid max_attempts', () => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, 'dry_run: true\nmax_attempts: 99\nrerun_all_fallback: true\n');
    expect(res.error).toMatch(/max_attempts:/);
    expect(res.kept).toEqual(['dry_run: true']);
    expect(res.config).toEqual({ ...BUILT_IN_DEFAULTS, dryRun: true });
  });

  it('a narrowing key widens nothing: a higher cap, enabled: true and dry_run: false are set aside', () => {
    const base = config({ maxAttempts: 4, textOnlyMaxAttempts: 2, dryRun: true, ignoreJobs: ['lint'] });
    const res = parseRepoConfig(
      base,
      'max_attempts: 2\nmax_attempts: 9\ntext_only_max_attempts: 5\ndry_run: false\nignore_jobs: [docs]\nenabled: true\n',
    );
    expect(res.error).toMatch(/max_attempts: set more than once/);
    expect(res.config).toEqual({ ...base, maxAttempts: 2, ignoreJobs: ['lint', 'docs'] });
  });

  it('applyConfig throws a ConfigError naming the key (for callers that layer settings)', () => {
    expect(() => applyConfig(BUILT_IN_DEFAULTS, { report: 'email' })).toThrow(ConfigError);
    expect(() => applyConfig(BUILT_IN_DEFAULTS, { report: 'email' })).toThrow(/^report:/);
  });

  it('no text ever makes parseRepoConfig throw, and a file with an error is never wider than the base', () => {
    // The YAML parser reports odd directives and tags as process warnings; keep the output quiet.
    const quiet = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    onTestFinished(() => quiet.mockRestore());
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
        return res.error === undefined || noWider(res.config, BUILT_IN_DEFAULTS);
      }),
      { numRuns: 300 },
    );
  });
});

describe('globMatch: `*` matches any run of characters, the rest is literal, case-insensitive', () => {
  it.each([
    ['all-green', 'all-green', true],
    ['all-green', 'All-Green', true],
    ['all-green', 'all-green-2', false],
    ['lint*', 'lint (ubuntu-latest)', true],
    ['lint*', 'prelint', false],
    ['*-green', 'all-green', true],
    ['test (*)', 'test (ubuntu-latest, 20)', true],
    ['test (*)', 'test ubuntu', false],
    ['build.*', 'build.linux', true],
    ['build.*', 'buildXlinux', false],
    ['a?c', 'abc', false],
    ['a?c', 'a?c', true],
    ['[x]', '[x]', true],
    ['[x]', 'x', false],
    ['*', 'anything at all', true],
    ['', '', true],
    ['', 'x', false],
  ] as const)('%j vs %j → %s', (glob, name, matches) => {
    expect(globMatch(glob, name)).toBe(matches);
  });
});

describe('empty keys', () => {
  it('an empty extra_patterns means no extra pattern, as an empty workflows means every workflow', () => {
    const { config: c, error } = parseRepoConfig(BUILT_IN_DEFAULTS, 'extra_patterns:\nworkflows:\n');
    expect(error).toBeUndefined();
    expect(c.extraPatterns).toEqual([]);
    expect(c.workflows).toBeNull();
  });
});

describe('stuck_after', () => {
  it.each([['0'], ['1441'], ['"15m"'], ['2.5']])('stuck_after: %s is refused, naming the key', (v) => {
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, `stuck_after: ${v}\n`);
    expect(res.error).toMatch(/stuck_after: expected a whole number of minutes from 1 to 1440/);
    expect(res.config.stuckAfterMinutes).toBe(15);
  });
});
