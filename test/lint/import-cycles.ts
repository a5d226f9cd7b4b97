/**
 * Import cycles among reprise's own modules, type imports included: import-x/no-cycle skips
 * `import type`, yet two modules that name each other's types are still one module split in two.
 * `npm run lint` runs this after ESLint; it prints each cycle and exits 1 when there is any.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOTS = ['lib', 'functions', 'infra'];

function listModules(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listModules(path);
    return /\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import or re-export of a module (static, dynamic, type-only alike), as module paths. */
export function importsOf(path: string, source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(path), name).replace(/\.js$/, '.ts'))
    .filter((target) => existsSync(target));
}

/** Strongly connected components of more than one module (or a module importing itself): Tarjan's. */
export function cyclesIn(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

export function importCycles(root = process.cwd()): string[][] {
  const graph = new Map<string, string[]>();
  for (const path of ROOTS.flatMap((r) => listModules(join(root, r)))) {
    graph.set(path, importsOf(path, readFileSync(path, 'utf8')));
  }
  return cyclesIn(graph).map((cycle) => cycle.map((p) => relative(root, p)));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const cycles = importCycles();
  for (const cycle of cycles) console.error(`import cycle (type imports included): ${cycle.join(' <-> ')}`);
  if (cycles.length > 0) process.exit(1);
}
