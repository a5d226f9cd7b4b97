/**
 * Which `lib/` modules have their unit tests where the module's name says: `lib/<folder>/<m>.ts`
 * is tested in `test/<folder>/<m>.test.ts`. Modules with no runtime code (types, interfaces) and
 * index modules (re-exports only) are not counted: TypeScript's own transpiler decides which.
 *
 * `npx tsx test/lint/test-mirror.ts` prints the share and the modules still without a mirror.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The share of modules with logic that must have their mirror test (test/lint/test-mirror.test.ts
 * holds it). Raised from 60 % to 90 %: a new module comes with its test.
 */
export const MIRROR_FLOOR = 0.9;

export interface MirrorReport {
  /** Modules with logic, relative to the repository root. */
  readonly counted: readonly string[];
  readonly mirrored: readonly string[];
  readonly missing: readonly string[];
  /** Type-only and index modules, not counted. */
  readonly skipped: readonly string[];
  readonly share: number;
}

function listModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listModules(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** True when the module emits nothing but re-exports: only types, or an index of other modules. */
export function hasNoLogicOfItsOwn(source: string): boolean {
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, removeComments: true },
  }).outputText;
  const file = ts.createSourceFile('m.js', js, ts.ScriptTarget.ES2022);
  return file.statements.every(
    (statement) => ts.isExportDeclaration(statement) || (ts.isImportDeclaration(statement) && !statement.importClause),
  );
}

export function testMirror(root = process.cwd()): MirrorReport {
  const counted: string[] = [];
  const skipped: string[] = [];
  for (const path of listModules(join(root, 'lib')).sort()) {
    const rel = relative(root, path);
    (hasNoLogicOfItsOwn(readFileSync(path, 'utf8')) ? skipped : counted).push(rel);
  }
  const mirrorOf = (rel: string) => join(root, 'test', rel.slice('lib/'.length).replace(/\.ts$/, '.test.ts'));
  const mirrored = counted.filter((rel) => existsSync(mirrorOf(rel)));
  const missing = counted.filter((rel) => !existsSync(mirrorOf(rel)));
  return { counted, mirrored, missing, skipped, share: counted.length ? mirrored.length / counted.length : 1 };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const report = testMirror();
  console.log(
    `${report.mirrored.length} of ${report.counted.length} modules with logic have test/<folder>/<module>.test.ts ` +
      `(${(report.share * 100).toFixed(1)} %, floor ${MIRROR_FLOOR * 100} %); ` +
      `${report.skipped.length} type-only or index modules not counted`,
  );
  for (const rel of report.missing) console.log(`  missing: ${rel}`);
}
