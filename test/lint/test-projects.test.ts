/**
 * Where a suite runs follows from its folder: every file under test/wall-clock/ runs in the
 * wall-clock project (last, one at a time), and no file elsewhere does, so a wall-clock suite cannot
 * run beside others and skew its figures, and a unit test cannot wait behind the waves.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type TestSpecification, type Vitest } from 'vitest/node';

const ROOT = join(import.meta.dirname, '../..');
const WALL_CLOCK_DIR = join(ROOT, 'test/wall-clock');

const testFilesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => relative(ROOT, join(dir, f)))
    .sort();

describe("vitest's projects follow the test tree's folders", () => {
  let vitest: Vitest;
  let specs: TestSpecification[];
  const projectsOf = (file: string) =>
    specs.filter((s) => relative(ROOT, s.moduleId) === file).map((s) => s.project.name);

  beforeAll(async () => {
    // Resolves the projects and their files only: nothing is run.
    vitest = await createVitest('test', { root: ROOT, config: join(ROOT, 'vitest.config.ts'), watch: false });
    specs = await vitest.globTestSpecifications();
  });
  afterAll(async () => vitest?.close());

  it('every file under test/wall-clock/ runs in the wall-clock project and in no other', () => {
    const files = testFilesUnder(WALL_CLOCK_DIR);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect([file, projectsOf(file)]).toEqual([file, ['wall-clock']]);
  });

  it('the wall-clock project runs nothing from outside test/wall-clock/', () => {
    const wallClock = specs
      .filter((s) => s.project.name === 'wall-clock')
      .map((s) => relative(ROOT, s.moduleId))
      .sort();
    expect(wallClock).toEqual(testFilesUnder(WALL_CLOCK_DIR));
  });

  it('every other test file runs in exactly one project, never the wall-clock one', () => {
    const elsewhere = testFilesUnder(join(ROOT, 'test')).filter(
      (f) => !f.startsWith('test/wall-clock/') && !f.startsWith('test/deployed/') && !f.includes('node_modules'),
    );
    expect(elsewhere.length).toBeGreaterThan(100);
    const wrong = elsewhere
      .map((file) => [file, projectsOf(file)] as const)
      .filter(([, projects]) => projects.length !== 1 || projects[0] === 'wall-clock');
    expect(wrong).toEqual([]);
  });
});
