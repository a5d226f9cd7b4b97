/**
 * Compares two synths of the stack, template by template, with asset hashes set aside: a change
 * that moves code (bundled into the functions) changes their hashes and nothing else.
 *
 * `npx tsx test/infra/template-diff.ts <before-dir> <after-dir>` prints each template that differs,
 * the first differing lines of each, and exits 1; it exits 0 when every template is the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A 64-hex asset hash (in an S3 key, a logical id suffix, metadata), as one placeholder. */
export function withoutAssetHashes(template: string): string {
  return template.replace(/[0-9a-f]{64}/g, '<asset-hash>');
}

/** The templates of a `cdk.out` directory (or any directory of `*.template.json`), by file name. */
export function templatesIn(dir: string): Map<string, string> {
  const names = readdirSync(dir).filter((f) => f.endsWith('.template.json'));
  return new Map(names.sort().map((f) => [f, withoutAssetHashes(readFileSync(join(dir, f), 'utf8'))]));
}

/** What differs between two sets of templates: templates on one side only, and the first lines that differ. */
export function templateDifferences(before: Map<string, string>, after: Map<string, string>, shown = 5): string[] {
  const out: string[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(name);
    const b = after.get(name);
    if (a === undefined || b === undefined) {
      out.push(`${name}: only in the ${a === undefined ? 'after' : 'before'} directory`);
      continue;
    }
    if (a === b) continue;
    const la = a.split('\n');
    const lb = b.split('\n');
    const lines: string[] = [];
    for (let i = 0; i < Math.max(la.length, lb.length) && lines.length < shown; i++) {
      if (la[i] !== lb[i]) lines.push(`  line ${i + 1}:\n    - ${la[i] ?? '(none)'}\n    + ${lb[i] ?? '(none)'}`);
    }
    out.push(`${name}: differs\n${lines.join('\n')}`);
  }
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [beforeDir, afterDir] = process.argv.slice(2);
  if (!beforeDir || !afterDir) {
    console.error('usage: npx tsx test/infra/template-diff.ts <before-dir> <after-dir>');
    process.exit(2);
  }
  const before = templatesIn(beforeDir);
  const after = templatesIn(afterDir);
  const differences = templateDifferences(before, after);
  if (before.size === 0) differences.unshift(`${beforeDir}: no *.template.json`);
  for (const d of differences) console.log(d);
  if (differences.length > 0) process.exit(1);
  console.log(`${after.size} template(s) the same, asset hashes aside`);
}
