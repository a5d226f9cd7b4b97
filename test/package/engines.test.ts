/**
 * One Node story: the package supports the Node versions `engines` states, every package it brings
 * or bundles accepts all of them (no EBADENGINE on a clean install), its oldest major is the one
 * the functions run on in Lambda, and the repository's own tooling runs on the Node of this machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from '../../infra/functions/handlers.js';
import { closure, type Manifest } from './consumer.js';

const ROOT = join(import.meta.dirname, '../..');
const semver = createRequire(import.meta.url)('semver') as {
  subset(sub: string, sup: string): boolean;
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { major: number } | null;
};

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest & {
  devEngines: { runtime: { name: string; version: string } };
};

/** Where each package lives, and the Node versions it declares (`engines.node`), when it does. */
interface Declared {
  readonly where: string;
  readonly node: string | undefined;
}

const declared = (dir: string): Declared => {
  const m = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  return { where: dir, node: m.engines?.node };
};

/** The packages esbuild takes into the command's bundle and into every function's, SDK included. */
async function bundled(): Promise<string[]> {
  const entries = [
    join(ROOT, 'lib/cli/main.ts'),
    ...readdirSync(join(ROOT, 'functions'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(ROOT, 'functions', f)),
  ];
  const { metafile } = await build({
    entryPoints: entries,
    outdir: '/nowhere',
    write: false,
    bundle: true,
    metafile: true,
    format: BUNDLE.format,
    platform: BUNDLE.platform,
    mainFields: [...BUNDLE.mainFields],
    logLevel: 'silent',
  });
  const dirs = Object.keys(metafile.inputs).flatMap((input) => {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    return m ? [m[1] as string] : [];
  });
  return [...new Set(dirs)];
}

/** The versions the package states it supports. */
const ENGINES = pkg.engines.node ?? '';

let tree: Declared[];

beforeAll(async () => {
  const installed = Object.keys(closure(ROOT, pkg)).map(declared);
  tree = [...installed, ...(await bundled()).map(declared)];
}, 60_000);

describe('the supported Node versions', () => {
  it("are Node 22 and later, stated with the reason; the oldest is the Lambda runtime's major", () => {
    expect(ENGINES).toBe('>=22');
    expect(semver.minVersion(ENGINES)?.major).toBe(Number(BUNDLE.target.replace('node', '')));
    const functions = readFileSync(join(ROOT, 'infra/functions/reprise-function.ts'), 'utf8');
    expect(functions).toContain(`Runtime.NODEJS_${semver.minVersion(ENGINES)?.major}_X`);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('Node.js 22 or later');
    expect(readme).toContain('Node.js 20 reached its end of life in April 2026');
    expect(readme).toContain("AWS\nLambda's `nodejs22.x`");
  });

  it('are accepted by every package a construct-only install brings and every package its bundles hold (no EBADENGINE)', () => {
    expect(tree.length).toBeGreaterThan(50);
    expect(tree.map((d) => d.where)).toContain('node_modules/content-type');
    const refusing = tree.filter((d) => d.node !== undefined && !semver.subset(ENGINES, d.node));
    expect(refusing.map((d) => `${d.where} wants ${d.node}`)).toEqual([]);
  });

  it('would be refused by that tree if they still named Node 20: the check can fail', () => {
    const refusing = tree.filter((d) => d.node !== undefined && !semver.subset('>=20', d.node));
    expect(refusing.map((d) => d.where)).toContain('node_modules/content-type');
  });

  it(`include the Node this repository's tooling runs on here (${process.version}), as devEngines says`, () => {
    expect(pkg.devEngines.runtime.name).toBe('node');
    expect(semver.satisfies(process.version, pkg.devEngines.runtime.version)).toBe(true);
    expect(semver.satisfies('20.19.0', pkg.devEngines.runtime.version)).toBe(true);
  });
});
