import { describe, expect, it } from 'vitest';
import { templateDifferences, withoutAssetHashes } from './template-diff.js';

const hash = (c: string) => c.repeat(64);
const template = (h: string, memory = 256) =>
  JSON.stringify({ Resources: { Fn: { Properties: { Code: { S3Key: `${h}.zip` }, MemorySize: memory } } } }, null, 1);

describe('template diff, asset hashes aside', () => {
  it('finds two synths the same when only the asset hashes moved', () => {
    const before = new Map([['Reprise.template.json', withoutAssetHashes(template(hash('a')))]]);
    const after = new Map([['Reprise.template.json', withoutAssetHashes(template(hash('b')))]]);
    expect(templateDifferences(before, after)).toEqual([]);
  });

  it('names the template and the line when anything else differs, and a template on one side only', () => {
    const before = new Map([['Reprise.template.json', withoutAssetHashes(template(hash('a')))]]);
    const after = new Map([
      ['Reprise.template.json', withoutAssetHashes(template(hash('a'), 512))],
      ['Other.template.json', '{}'],
    ]);
    const differences = templateDifferences(before, after);
    expect(differences[0]).toMatch(/^Reprise\.template\.json: differs\n {2}line \d+:\n {4}- .*256\n {4}\+ .*512/);
    expect(differences[1]).toBe('Other.template.json: only in the after directory');
  });
});
