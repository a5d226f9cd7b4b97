/**
 * Bounded, linear work per repository: a repository's file is parsed once per version (its
 * ETag), refused unread past 64 KiB, and parsed in linear time below it; whatever names and
 * texts a workflow holds, its decision item stays far below DynamoDB's 400 KB.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS, parseRepoConfig, REPO_CONFIG_MAX_BYTES } from '../../lib/config/repo-config.js';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import { RepoApi } from '../../lib/github/repo-api.js';
import { STORED_JOBS_LIMIT } from '../../lib/ledger/attempt-items.js';
import { TEXT_CAPS } from '../../lib/util/clip.js';
import { failureAnnotation, lostAnnotation, TEXT } from '../support/evidence.js';
import { harnessForFile, INSTALLATION_ID } from '../support/harness.js';

const h = harnessForFile();

const keys = (n: number) => Array.from({ length: n }, (_, i) => `key_${i}: ${i}`).join('\n');
const apiFor = (repo: string) => {
  const [owner, name] = repo.split('/') as [string, string];
  return new RepoApi(h.client(INSTALLATION_ID), owner, name, h.sim.graphqlUrl);
};

describe('the repository file', () => {
  it('a 60,000-key file (857 KiB) is refused before it is parsed: a short error, in well under a second of CPU', () => {
    const text = keys(60_000);
    expect(text.length).toBeGreaterThan(800 * 1024);
    const cpu = process.cpuUsage();
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
    expect(res.error).toMatch(/more than the 65536 a repository file may hold; not read/);
    expect(res.error!.length).toBeLessThan(200);
    expect(res.config.enabled).toBe(false);
  });

  it('a file just under the cap, thousands of keys and one repeated at the end: the repeat is found, the file fails closed', () => {
    const text = `dry_run: true\n${keys(4_000)}\nkey_7: again\n`;
    expect(Buffer.byteLength(text)).toBeLessThan(REPO_CONFIG_MAX_BYTES);
    const res = parseRepoConfig(BUILT_IN_DEFAULTS, text);
    expect(res.error).toMatch(/key_0|key_7/);
    expect(res.config.dryRun).toBe(true);
  });

  it('an unchanged file (a 304 for its ETag) is not parsed again: the same settings come back', async () => {
    const repo = 'acme/etag-cached';
    h.sim.setRepoFile(repo, '.github/reprise.yml', 'max_attempts: 2\nignore_jobs: [lint]\n');
    const source = new RepoConfigSource();
    const first = await source.load(apiFor(repo), 'acme', 'etag-cached', BUILT_IN_DEFAULTS);
    const second = await source.load(apiFor(repo), 'acme', 'etag-cached', BUILT_IN_DEFAULTS);
    expect(first.config.maxAttempts).toBe(2);
    expect(h.sim.requests.filter((r) => r.path.includes('/contents/')).map((r) => r.status)).toEqual([200, 304]);
    expect(second.config).toBe(first.config);

    h.sim.setRepoFile(repo, '.github/reprise.yml', 'max_attempts: 1\n');
    const changed = await source.load(apiFor(repo), 'acme', 'etag-cached', BUILT_IN_DEFAULTS);
    expect(changed.config.maxAttempts).toBe(1);
  });
  it('a file GitHub declares larger than the cap is not decoded nor kept: it fails closed with its declared size, and a 304 keeps that answer', async () => {
    const repo = 'acme/oversized';
    const text = `dry_run: true\n${keys(8_000)}\n`;
    const bytes = Buffer.byteLength(text);
    expect(bytes).toBeGreaterThan(REPO_CONFIG_MAX_BYTES);
    h.sim.setRepoFile(repo, '.github/reprise.yml', text);
    expect(await apiFor(repo).readFile('.github/reprise.yml', { maxBytes: REPO_CONFIG_MAX_BYTES })).toMatchObject({
      kind: 'oversized',
      bytes,
    });
    const source = new RepoConfigSource();
    const first = await source.load(apiFor(repo), 'acme', 'oversized', BUILT_IN_DEFAULTS);
    expect(first.error).toBe(
      `.github/reprise.yml: ${bytes} bytes, more than the ${REPO_CONFIG_MAX_BYTES} a repository file may hold; not read`,
    );
    // Nothing narrows in a file that was never read: the runs are left alone.
    expect(first.config.enabled).toBe(false);
    expect(first.kept).toEqual([]);
    const second = await source.load(apiFor(repo), 'acme', 'oversized', BUILT_IN_DEFAULTS);
    expect(second.config).toBe(first.config);
    expect(
      h.sim.requests.filter((r) => r.path.includes('/repos/acme/oversized/contents/')).map((r) => r.status),
    ).toEqual([200, 200, 304]);
  });
});

describe('a decision item stays far below 400 KB', () => {
  it('jobs named with 100,000 characters and 100,000-character annotations: recorded, every name and reason capped', async () => {
    const long = (c: string) => c.repeat(100_000);
    const jobs = Array.from({ length: 20 }, (_, i) => ({
      name: `${i}${long('n')}`,
      conclusion: 'failure' as const,
      runnerName: long('r'),
      annotations: [failureAnnotation(`${TEXT.selfHostedUnnamed} ${long('x')}`)],
    }));
    const run = h.sim.addRun({ repo: 'acme/long-names', workflowName: 'w'.repeat(5_000), jobs });
    const res = await h.worker()(h.sqsEvent([h.message(run.id)]));
    expect(res.batchItemFailures).toEqual([]);
    const line = h.log.named('decision').at(-1)!;
    expect(line.decision).toBe('retried');
    expect(String(line.reason).length).toBeLessThanOrEqual(TEXT_CAPS.reason);
    for (const j of h.log.named('job')) {
      expect(String(j.name).length).toBeLessThanOrEqual(TEXT_CAPS.name);
      expect(String(j.runner_name).length).toBeLessThanOrEqual(TEXT_CAPS.name);
      expect(String(j.evidence).length).toBeLessThanOrEqual(TEXT_CAPS.error);
    }
    const item = await h.ledger.attempts.get(h.sim.repoId('acme/long-names'), run.id, 1);
    expect(item?.decision).toBe('retried');
    const { message: _message, ...decision } = item!;
    expect(JSON.stringify(decision).length).toBeLessThan(64 * 1024);
  });

  it(`a run of ${STORED_JOBS_LIMIT + 50} failed jobs: the item lists ${STORED_JOBS_LIMIT} and counts the rest`, async () => {
    const jobs = Array.from({ length: STORED_JOBS_LIMIT + 50 }, (_, i) => ({
      name: `shard-${i}-${'n'.repeat(300)}`,
      conclusion: 'failure' as const,
      annotations: [lostAnnotation(`r-${i}`)],
    }));
    const run = h.sim.addRun({ repo: 'acme/many-jobs', jobs });
    await h.worker()(h.sqsEvent([h.message(run.id)]));
    const item = await h.ledger.attempts.get(h.sim.repoId('acme/many-jobs'), run.id, 1);
    expect(item?.decision).toBe('retried');
    const details = item!.details as { jobs: unknown[]; jobsOmitted: number };
    expect(details.jobs).toHaveLength(STORED_JOBS_LIMIT);
    expect(details.jobsOmitted).toBe(50);
    const { message: _message, ...decision } = item!;
    expect(JSON.stringify(decision).length).toBeLessThan(150 * 1024);
  });
});
