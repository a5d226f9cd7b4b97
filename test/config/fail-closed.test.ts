/**
 * A `.github/reprise.yml` that cannot be read as written never widens what reprise does: every
 * key that stops or narrows re-runs holds from whatever part of the file parsed, and a file that
 * keeps none leaves the run alone with the error as the reason. What narrows is declared with
 * each setting in the schema (`failClosed`): the first rows are generated from those
 * declarations; the last run each narrowing key through the worker, each on a run lost to a
 * runner (text evidence, attempt 1) that defaults alone would re-run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failClosed, LEFT_ALONE } from '../../lib/config/fail-closed.js';
import { parseRepoConfig, REPO_CONFIG_MAX_BYTES } from '../../lib/config/repo-config.js';
import { applyConfig, BUILT_IN_DEFAULTS, REPO_SETTING_NAMES, repoFieldOf } from '../../lib/config/repo-settings.js';
import type { FailClosedRule } from '../../lib/config/setting.js';
import { MAX_ATTEMPTS_LIMIT, SETTING_NAMES, settingOf } from '../../lib/config/settings-schema.js';
import type { RepoConfig } from '../../lib/model.js';
import { lostAnnotation } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

/** Under the highest cap, so a text-only cap is not lowered to the exact-signal one. */
const UNCAPPED: RepoConfig = { ...BUILT_IN_DEFAULTS, maxAttempts: MAX_ATTEMPTS_LIMIT };

/** A file value that narrows the base, one that would widen it (set aside), and what each leaves. */
interface Case {
  readonly base: RepoConfig;
  readonly narrow: unknown;
  readonly narrowed: unknown;
  readonly widen: unknown;
}

/** Built from the rule and the setting's own default and sample, for every rule that narrows. */
function caseOf(
  rule: Exclude<FailClosedRule, 'none' | { readonly keeps: unknown }>,
  field: string,
  s: { default: unknown; sample?: unknown },
): Case {
  const on = (value: unknown): RepoConfig => ({ ...UNCAPPED, [field]: value });
  if (rule === 'lower') return { base: on(s.sample), narrow: 1, narrowed: 1, widen: (s.sample as number) + 1 };
  if (rule === 'more') {
    const sample = s.sample as string[];
    return { base: on(['build']), narrow: sample, narrowed: ['build', ...sample], widen: [] };
  }
  // A list of names allowed narrows from all of them (unset); an empty key allows all again.
  if (rule === 'fewer') {
    const [first] = s.sample as string[];
    return { base: on(null), narrow: [first], narrowed: [first], widen: null };
  }
  if ('to' in rule) {
    // The other value: the default, or the sample where the default is the narrowing one.
    const widen = s.default !== rule.to ? s.default : s.sample;
    return { base: on(widen), narrow: rule.to, narrowed: rule.to, widen };
  }
  const order = rule.order;
  return { base: on(order[1]), narrow: order.at(-1), narrowed: order.at(-1), widen: order[0] };
}

const ruled = REPO_SETTING_NAMES.map((name) => ({
  name,
  key: settingOf(name).repoKey as string,
  field: repoFieldOf(name),
  s: settingOf(name),
  rule: settingOf(name).failClosed,
}));
const narrowing = ruled.flatMap(({ rule, ...r }) =>
  rule === undefined || rule === 'none' || (typeof rule === 'object' && 'keeps' in rule)
    ? []
    : [{ ...r, rule, ...caseOf(rule, r.field, r.s) }],
);

/** An unknown key beside the entry: the file has an error, the entry itself parses. */
const BROKEN = 'max_attempt: 9';

describe('the fail-closed rules are declared with each setting in the schema', () => {
  it('every setting a repository file may set declares its rule, and no other setting does', () => {
    const wrong = SETTING_NAMES.filter(
      (n) => (settingOf(n).repoKey !== undefined) !== (settingOf(n).failClosed !== undefined),
    );
    expect(wrong).toEqual([]);
  });

  it('the settings that narrow re-runs are the ones that stop, cap, filter or quiet them; report keeps check_run', () => {
    expect(narrowing.map((r) => r.key).sort()).toEqual(
      [
        'enabled',
        'dry_run',
        'require_exact_signal',
        'rerun_all_fallback',
        'max_attempts',
        'text_only_max_attempts',
        'ignore_jobs',
        'workflows',
        'stale_check',
        'merge_queue',
        'max_requeues',
        'platform_errors',
        'early_recovery',
      ].sort(),
    );
    expect(settingOf('report').failClosed).toEqual({ keeps: 'check_run' });
    expect(
      ruled
        .filter((r) => r.rule === 'none')
        .map((r) => r.key)
        .sort(),
    ).toEqual(['extra_patterns', 'stuck_after']);
  });

  describe.each(narrowing)('$key ($rule)', ({ key, field, base, narrow, narrowed, widen }) => {
    it('in a file with an error, its narrowing value is kept, and the error named', () => {
      const res = parseRepoConfig(base, `${key}: ${JSON.stringify(narrow)}\n${BROKEN}\n`);
      expect(res.error).toBe('.github/reprise.yml: unknown key(s): max_attempt');
      expect(res.kept).toEqual([`${key}: ${JSON.stringify(narrow)}`]);
      expect(res.config[field as keyof RepoConfig]).toEqual(narrowed);
      expect(res.config.disabledReason).toBeUndefined();
    });

    it('in a file with an error, a value that would widen is set aside: the base holds, the runs are left alone', () => {
      const res = parseRepoConfig(base, `${key}: ${JSON.stringify(widen)}\n${BROKEN}\n`);
      expect(res.error).toBe('.github/reprise.yml: unknown key(s): max_attempt');
      expect(res.kept).toEqual([]);
      if (field !== 'enabled') expect(res.config[field as keyof RepoConfig]).toEqual(base[field as keyof RepoConfig]);
      expect(res.config).toMatchObject({ enabled: false, disabledReason: LEFT_ALONE });
    });

    it('in a valid file, the same widening value applies: only a broken file is held to the rule', () => {
      const res = parseRepoConfig(base, `${key}: ${JSON.stringify(widen)}\n`);
      expect(res.error).toBeUndefined();
      expect(res.config[field as keyof RepoConfig]).not.toEqual(narrowed);
    });
  });

  it('report: check_run is kept from a broken file but narrows nothing: alone, the runs are left alone', () => {
    const res = parseRepoConfig(UNCAPPED, `report: check_run\n${BROKEN}\n`);
    expect(res.kept).toEqual([]);
    expect(res.config).toMatchObject({ report: 'check_run', enabled: false, disabledReason: LEFT_ALONE });
    const beside = parseRepoConfig(UNCAPPED, `report: check_run\ndry_run: true\n${BROKEN}\n`);
    expect(beside.kept).toEqual(['dry_run: true']);
    expect(beside.config).toMatchObject({ report: 'check_run', dryRun: true, enabled: true });
  });

  it('an entry that does not parse is set aside even when its value would narrow', () => {
    const res = parseRepoConfig(UNCAPPED, `max_attempts: 0\n${BROKEN}\n`);
    expect(res.kept).toEqual([]);
    expect(res.config.maxAttempts).toBe(MAX_ATTEMPTS_LIMIT);
  });

  it('a lowered max_attempts lowers the kept text-only cap with it', () => {
    const closed = failClosed(UNCAPPED, [['max_attempts', 1]], (raw) => applyConfig(UNCAPPED, raw));
    expect(closed.config).toMatchObject({ maxAttempts: 1, textOnlyMaxAttempts: 1 });
    expect(closed.kept).toEqual(['max_attempts: 1']);
  });

  it('every occurrence of a repeated key counts: the narrowing one holds whatever follows', () => {
    const entries: [string, unknown][] = [
      ['dry_run', true],
      ['dry_run', false],
      ['max_attempts', 2],
      ['max_attempts', 9],
    ];
    const closed = failClosed(UNCAPPED, entries, (raw) => applyConfig(UNCAPPED, raw));
    expect(closed.config).toMatchObject({ dryRun: true, maxAttempts: 2 });
    expect(closed.kept).toEqual(['dry_run: true', 'max_attempts: 2']);
  });
});

let h: Harness;

/** Each narrowing key, a widening contradiction of it, and what it decides on the lost run. */
const KEYS = [
  { key: 'enabled: false', contradiction: 'enabled: true', decision: 'ignored', reason: /enabled: false/ },
  { key: 'dry_run: true', contradiction: 'dry_run: false', decision: 'dry_run', reason: /would re-run/ },
  {
    key: 'require_exact_signal: true',
    contradiction: 'require_exact_signal: false',
    decision: 'no_infra_evidence',
    reason: /require_exact_signal is on/,
  },
  { key: 'max_attempts: 1', contradiction: 'max_attempts: 9', decision: 'attempt_cap', reason: /max_attempts 1/ },
  {
    key: 'text_only_max_attempts: 1',
    contradiction: 'text_only_max_attempts: 9',
    decision: 'attempt_cap',
    reason: /text_only_max_attempts 1/,
  },
  { key: 'ignore_jobs: [test]', contradiction: 'ignore_jobs: []', decision: 'no_candidate_jobs', reason: /no job/ },
  { key: 'workflows: [Nightly]', contradiction: 'workflows:', decision: 'ignored', reason: /not listed/ },
] as const;

/** Each kind of malformation, written after the key. */
const MALFORMED: readonly (readonly [string, (contradiction: string) => string])[] = [
  ['bad YAML syntax after the key', () => 'report: [log\nstale_check: off'],
  ['an unterminated quote after the key', () => 'extra_patterns: "node (drained'],
  ['an invalid extra pattern beside it', () => 'extra_patterns: |\n  node (drained\n'],
  ['an invalid sibling value', () => 'rerun_all_fallback: "no"'],
  ['an unknown key beside it', () => 'max_attempt: 9'],
  ['a sibling of the wrong type', () => 'stuck_after: "15m"'],
  ['a tab as indentation', () => '\tstale_check: off'],
  ['the key contradicted later in the file', (c) => c],
];

let seq = 0;
async function decideWith(file: string) {
  const repo = `acme/closed-${++seq}`;
  h.sim.setRepoFile(repo, '.github/reprise.yml', file);
  const run = h.sim.addRun({
    repo,
    jobs: [{ name: 'test', conclusion: 'failure', annotations: [lostAnnotation('r-1')] }],
  });
  const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
  expect(res.batchItemFailures).toEqual([]);
  return { line: h.log.named('decision').at(-1), posts: h.sim.rerunTally(run.id).received };
}

describe('a repository file with an error fails closed', () => {
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());
  beforeEach(() => h.log.clear());

  it('control: the same lost run under a valid file is re-run', async () => {
    const { line, posts } = await decideWith('report: log\n');
    expect(line).toMatchObject({ decision: 'retried' });
    expect(posts).toBe(1);
  });

  describe.each(KEYS)('$key', ({ key, contradiction, decision, reason }) => {
    it('control: valid alone, it decides the lost run as it says', async () => {
      const { line, posts } = await decideWith(`${key}\n`);
      expect(line).toMatchObject({ decision });
      expect(posts).toBe(0);
    });

    it.each(MALFORMED)('with %s: still honoured, no re-run, the error named', async (_label, after) => {
      const { line, posts } = await decideWith(`${key}\n${after(contradiction)}\n`);
      expect(posts).toBe(0);
      expect(line).toMatchObject({ decision });
      expect(String(line?.reason)).toMatch(reason);
      expect(String(line?.reason)).toMatch(
        /^configuration error, kept only what narrows re-runs \(.+\): \.github\/reprise\.yml: /,
      );
      expect(line?.config_error).toMatch(/^\.github\/reprise\.yml: /);
    });
  });

  it.each(MALFORMED)(
    'with %s and no narrowing key: the run is left alone (ignored), the error as the reason',
    async (_label, after) => {
      const { line, posts } = await decideWith(`enabled: true\n${after('enabled: true')}\n`);
      expect(posts).toBe(0);
      expect(line).toMatchObject({ decision: 'ignored' });
      expect(String(line?.reason)).toMatch(/^configuration error, runs are left alone: \.github\/reprise\.yml: /);
    },
  );

  it.each(KEYS)('$key in a file past the size cap: refused unread, the run left alone', async ({ key }) => {
    const padding = `# ${'x'.repeat(78)}\n`.repeat(Math.ceil(REPO_CONFIG_MAX_BYTES / 80) + 1);
    const { line, posts } = await decideWith(`${key}\n${padding}`);
    expect(posts).toBe(0);
    expect(line).toMatchObject({ decision: 'ignored' });
    expect(String(line?.reason)).toMatch(/more than the 65536 a repository file may hold; not read/);
  });
});
