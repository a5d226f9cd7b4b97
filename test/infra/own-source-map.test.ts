import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ownSourceMap } from '../../infra/build/own-source-map.js';
import { BUNDLE, PROJECT_ROOT } from '../../infra/functions/handlers.js';

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

describe("a function's bundle, its map trimmed", () => {
  it('resolves every position of its own code as the full map does, and none of a library', async () => {
    const out = await build({
      entryPoints: [join(PROJECT_ROOT, 'functions/signal-intake.ts')],
      outfile: join(PROJECT_ROOT, 'bench/own-source-map/index.mjs'),
      bundle: true,
      minify: true,
      sourcemap: 'external',
      sourcesContent: false,
      format: BUNDLE.format,
      platform: BUNDLE.platform,
      target: BUNDLE.target,
      mainFields: [...BUNDLE.mainFields],
      write: false,
      logLevel: 'error',
    });
    const json = out.outputFiles.find((f) => f.path.endsWith('.map'))!.text;
    const full = JSON.parse(json) as { sources: string[]; mappings: string };
    const fullMap = new SourceMap(full as never);
    const trimmedMap = new SourceMap(JSON.parse(ownSourceMap(json)) as never);
    let own = 0;
    let library = 0;
    decode(full.mappings).forEach((line, l) => {
      for (const seg of line) {
        if (seg.length === 1) continue;
        const entry = trimmedMap.findEntry(l, seg[0]) as { originalSource?: string; originalLine?: number };
        if (full.sources[seg[1]]!.includes('node_modules/')) {
          library++;
          expect(entry.originalSource).toBeUndefined();
        } else {
          own++;
          const want = fullMap.findEntry(l, seg[0]) as { originalSource?: string; originalLine?: number };
          expect([entry.originalSource, entry.originalLine]).toEqual([want.originalSource, want.originalLine]);
        }
      }
    });
    expect(own).toBeGreaterThan(100);
    expect(library).toBeGreaterThan(own);
  }, 60_000);
});
