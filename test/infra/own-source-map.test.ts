import { SourceMap } from 'node:module';
import { encode } from '@jridgewell/sourcemap-codec';
import { describe, expect, it } from 'vitest';
import { ownSourceMap } from '../../infra/build/own-source-map.js';

// One generated line: own code at columns 0 and 10, a library from 20 to 39, own code again at 40.
const MAP = JSON.stringify({
  version: 3,
  sources: ['../../lib/a.ts', '../../node_modules/@aws-sdk/x/index.js', '../../functions/b.ts'],
  names: ['libName', 'ownName'],
  mappings: encode([
    [
      [0, 0, 1, 0],
      [10, 0, 2, 4, 1],
      [20, 1, 7, 0, 0],
      [30, 1, 9, 2],
      [40, 2, 3, 0],
    ],
  ]),
});

describe('the shipped source maps', () => {
  const trimmed = JSON.parse(ownSourceMap(MAP)) as { sources: string[]; names: string[] };
  const map = new SourceMap(trimmed as never);

  it("keep the project's own sources and names only", () => {
    expect(trimmed.sources).toEqual(['../../lib/a.ts', '../../functions/b.ts']);
    expect(trimmed.names).toEqual(['ownName']);
  });

  it('map own code to the same place as before', () => {
    expect(map.findEntry(0, 12)).toMatchObject({
      originalSource: '../../lib/a.ts',
      originalLine: 2,
      originalColumn: 4,
    });
    expect(map.findEntry(0, 41)).toMatchObject({ originalSource: '../../functions/b.ts', originalLine: 3 });
  });

  it("map a library's code to no source, not to the own code before it", () => {
    expect(map.findEntry(0, 25)).toMatchObject({ generatedColumn: 20, originalSource: undefined });
    expect(map.findEntry(0, 35)).toMatchObject({ generatedColumn: 20, originalSource: undefined });
  });
});
