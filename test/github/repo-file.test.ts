import { describe, expect, it } from 'vitest';
import { readRepoFile } from '../../lib/github/repo-file.js';
import { type SimRepo, simRepoForTests } from './sim-repo.js';

let gh: SimRepo;
simRepoForTests((r) => (gh = r));

let counted = 0;
const calls = () => gh.requests(() => void counted++);

describe('readRepoFile (simulator)', () => {
  it('a file is found with its text (UTF-8) and its ETag', async () => {
    gh.sim.setRepoFile(gh.repo, 'docs/a.md', 'héllo ✅\n');
    const got = await readRepoFile(calls(), 'docs/a.md');
    expect(got).toMatchObject({ kind: 'found', text: 'héllo ✅\n' });
    expect(got.kind === 'found' && got.etag).toBeTruthy();
  });

  it('read again with its ETag: unchanged (a 304), still counted as a request', async () => {
    gh.sim.setRepoFile(gh.repo, 'b.yml', 'x: 1\n');
    const first = await readRepoFile(calls(), 'b.yml');
    const etag = first.kind === 'found' ? first.etag : undefined;
    counted = 0;
    expect(await readRepoFile(calls(), 'b.yml', { etag: etag! })).toEqual({ kind: 'unchanged' });
    expect(counted).toBe(1);
    gh.sim.setRepoFile(gh.repo, 'b.yml', 'x: 2\n');
    expect(await readRepoFile(calls(), 'b.yml', { etag: etag! })).toMatchObject({ kind: 'found', text: 'x: 2\n' });
  });

  it('no such file: absent', async () => {
    expect(await readRepoFile(calls(), 'nowhere.yml')).toEqual({ kind: 'absent' });
  });

  it('larger than maxBytes: oversized, by the size GitHub declares, never decoded', async () => {
    gh.sim.setRepoFile(gh.repo, 'big.txt', 'z'.repeat(5000));
    const got = await readRepoFile(calls(), 'big.txt', { maxBytes: 4096 });
    expect(got).toMatchObject({ kind: 'oversized', bytes: 5000 });
    expect(await readRepoFile(calls(), 'big.txt', { maxBytes: 5000 })).toMatchObject({ kind: 'found' });
  });

  it("another repository of the same owner (the owner's .github)", async () => {
    const owner = gh.repo.split('/')[0]!;
    gh.sim.setRepoFile(`${owner}/.github`, 'shared.yml', 'from the owner\n');
    expect(await readRepoFile(calls(), 'shared.yml', { repo: '.github' })).toMatchObject({
      kind: 'found',
      text: 'from the owner\n',
    });
    expect(await readRepoFile(calls(), 'shared.yml')).toEqual({ kind: 'absent' });
  });

  it('a 5xx is a fault: thrown', async () => {
    gh.sim.injectFault({ method: 'GET', path: /\/contents\//, status: 502, times: 10 });
    await expect(readRepoFile(calls(), 'any.yml')).rejects.toMatchObject({ status: 502 });
  });
});
