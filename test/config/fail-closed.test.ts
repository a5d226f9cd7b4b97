/**
 * A `.github/reprise.yml` that cannot be read as written never widens what reprise does: every
 * key that stops or narrows re-runs holds from whatever part of the file parsed, and a file that
 * keeps none leaves the run alone with the error as the reason. Each row is a run lost to a
 * runner (text evidence, attempt 1) that defaults alone would re-run.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_CONFIG_MAX_BYTES } from '../../lib/config/repo-config.js';
import { lostAnnotation } from '../support/evidence.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());
beforeEach(() => h.log.clear());

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
