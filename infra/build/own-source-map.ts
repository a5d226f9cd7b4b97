/**
 * Trims a bundle's source map to the project's own sources. The functions run with
 * `--enable-source-maps`, and Node parses the whole map when it loads the bundle: a map that also
 * covers the bundled AWS SDK and other libraries is twice the size and costs tens of milliseconds
 * of every cold start, for frames that say nothing a stack trace's own-code frames do not.
 * A frame inside a library still resolves: to no source, so the stack shows the bundle's position.
 */
import { decode, encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';

interface SourceMap {
  version: 3;
  sources: string[];
  names: string[];
  mappings: string;
  [key: string]: unknown;
}

/** Whether a source path (as esbuild writes it, relative to the map) is a library's. */
const isLibrary = (source: string): boolean => source.includes('node_modules/');

export function ownSourceMap(json: string): string {
  const map = JSON.parse(json) as SourceMap;
  const sources: string[] = [];
  const names: string[] = [];
  const sourceAt = new Map<number, number>();
  const nameAt = new Map<number, number>();
  const index = (table: Map<number, number>, list: string[], from: string[], i: number): number => {
    let j = table.get(i);
    if (j === undefined) {
      j = list.push(from[i] as string) - 1;
      table.set(i, j);
    }
    return j;
  };
  const lines = decode(map.mappings).map((line) => {
    const out: SourceMapSegment[] = [];
    let inLibrary = false;
    for (const seg of line) {
      if (seg.length === 1 || isLibrary(map.sources[seg[1]] as string)) {
        // One column-only segment ends the previous own mapping; the rest of the run adds nothing.
        if (!inLibrary) out.push([seg[0]]);
        inLibrary = true;
        continue;
      }
      inLibrary = false;
      const src = index(sourceAt, sources, map.sources, seg[1]);
      out.push(
        seg.length === 5
          ? [seg[0], src, seg[2], seg[3], index(nameAt, names, map.names, seg[4])]
          : [seg[0], src, seg[2], seg[3]],
      );
    }
    return out;
  });
  return JSON.stringify({ ...map, sources, names, mappings: encode(lines) });
}
