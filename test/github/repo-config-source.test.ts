import { beforeEach, describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { clampNote, CONFIG_PATH, configErrorNote, RepoConfigSource } from '../../lib/github/repo-config-source.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
let n = 0;
/** A repository of its own per test, under an owner of its own: no test sees another's files or cache. */
let owner: string;
simRepoForTests((r) => (gh = r));
beforeEach(() => {
  owner = `org${++n}`;
  gh.sim.setRepoFile(`${owner}/app`, 'README.md', null);
});
const contentReads = () => gh.sim.count('GET', /\/contents\//);

describe('RepoConfigSource.load (simulator)', () => {
  it("the repository's own file, parsed over the defaults", async () => {
    gh.sim.setRepoFile(`${owner}/app`, CONFIG_PATH, 'max_attempts: 4\n');
    const got = await new RepoConfigSource().load(gh.api(`${owner}/app`), owner, 'app', BUILT_IN_DEFAULTS);
    expect(got).toEqual({ config: { ...BUILT_IN_DEFAULTS, maxAttempts: 4 }, origin: `${owner}/app` });
  });

  it("no file of its own: the owner's .github repository's; neither: the defaults", async () => {
    const source = new RepoConfigSource();
    expect(await source.load(gh.api(`${owner}/app`), owner, 'app', BUILT_IN_DEFAULTS)).toEqual({
      config: BUILT_IN_DEFAULTS,
      origin: 'defaults',
    });
    const other = `org${++n}`;
    gh.sim.setRepoFile(`${other}/app`, 'README.md', null);
    gh.sim.setRepoFile(`${other}/.github`, CONFIG_PATH, 'dry_run: true\n');
    const got = await source.load(gh.api(`${other}/app`), other, 'app', BUILT_IN_DEFAULTS);
    expect(got).toEqual({ config: { ...BUILT_IN_DEFAULTS, dryRun: true }, origin: `${other}/.github` });
  });

  it('an absent file is remembered for absentTtlMs: no request until then, then read again', async () => {
    let now = 0;
    const source = new RepoConfigSource(60_000, () => now);
    const api = gh.api(`${owner}/app`);
    await source.load(api, owner, 'app', BUILT_IN_DEFAULTS);
    expect(contentReads()).toBe(2);
    now = 59_999;
    await source.load(api, owner, 'app', BUILT_IN_DEFAULTS);
    expect(contentReads()).toBe(2);
    now = 60_000;
    gh.sim.setRepoFile(`${owner}/app`, CONFIG_PATH, 'enabled: false\n');
    const got = await source.load(api, owner, 'app', BUILT_IN_DEFAULTS);
    expect(got.config.enabled).toBe(false);
    expect(contentReads()).toBe(3);
  });

  it('a file read before is asked for with its ETag: unchanged, the same settings', async () => {
    gh.sim.setRepoFile(`${owner}/app`, CONFIG_PATH, 'max_attempts: 5\n');
    const source = new RepoConfigSource();
    const api = gh.api(`${owner}/app`);
    const first = await source.load(api, owner, 'app', BUILT_IN_DEFAULTS);
    const second = await source.load(api, owner, 'app', BUILT_IN_DEFAULTS);
    expect(second).toEqual(first);
    const reads = gh.sim.requests.filter((r) => r.method === 'GET' && /\/contents\//.test(r.path));
    expect(reads).toHaveLength(2);
    expect(reads[1]!.status).toBe(304);
  });

  it('concurrent loads of one file share the request in flight', async () => {
    gh.sim.setRepoFile(`${owner}/.github`, CONFIG_PATH, 'dry_run: true\n');
    const source = new RepoConfigSource();
    const loads = await Promise.all(
      Array.from({ length: 5 }, () => source.load(gh.api(`${owner}/app`), owner, 'app', BUILT_IN_DEFAULTS)),
    );
    expect(new Set(loads.map((l) => l.origin))).toEqual(new Set([`${owner}/.github`]));
    expect(gh.sim.count('GET', new RegExp(`/repos/${owner}/app/contents/`))).toBe(1);
    expect(gh.sim.count('GET', new RegExp(`/repos/${owner}/.github/contents/`))).toBe(1);
  });

  it('a broken file: the error, and the narrowing keys it kept', async () => {
    gh.sim.setRepoFile(`${owner}/app`, CONFIG_PATH, 'dry_run: true\nmax_attempts: lots\n');
    const got = await new RepoConfigSource().load(gh.api(`${owner}/app`), owner, 'app', BUILT_IN_DEFAULTS);
    expect(got.error).toMatch(/max_attempts/);
    expect(got.kept).toEqual(['dry_run: true']);
    expect(got.config.dryRun).toBe(true);
  });

  it("values above the operator's ceiling are lowered and said", async () => {
    gh.sim.setRepoFile(`${owner}/app`, CONFIG_PATH, 'max_attempts: 9\n');
    const source = new RepoConfigSource(60_000, Date.now, { maxAttempts: 3, extraPatterns: true });
    const got = await source.load(gh.api(`${owner}/app`), owner, 'app', BUILT_IN_DEFAULTS);
    expect(got.config.maxAttempts).toBe(3);
    expect(got.clamped).toEqual(['max_attempts 9 clamped to 3 (REPO_MAX_ATTEMPTS_CEILING)']);
  });
});

describe('the notes a decision gives', () => {
  it('configErrorNote: what was kept, or that runs are left alone', () => {
    expect(configErrorNote({ error: 'bad yaml', kept: ['dry_run', 'enabled'] })).toBe(
      'configuration error, kept only what narrows re-runs (dry_run, enabled): bad yaml',
    );
    expect(configErrorNote({ error: 'bad yaml' })).toBe('configuration error, runs are left alone: bad yaml');
  });

  it("clampNote: each clamp, after the deployment's ceiling", () => {
    expect(clampNote(['a', 'b'])).toBe("repository settings above the deployment's ceiling: a; b");
  });
});
