/**
 * Each start on a data dir counts one more boot generation and names its claims with it, so a
 * later start knows every claim of an earlier generation is dead.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootFile, nextBoot } from '../../lib/local/boot.js';

describe('nextBoot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reprise-boot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts 1, 2, 3 on one data dir, each owner naming its generation and this process', () => {
    const boots = [nextBoot(dir), nextBoot(dir), nextBoot(dir)];
    expect(boots.map((b) => b.generation)).toEqual([1, 2, 3]);
    boots.forEach((b, i) => expect(b.owner).toMatch(new RegExp(`^local-g${i + 1}-${process.pid}-[0-9a-f]{8}$`)));
    expect(new Set(boots.map((b) => b.owner)).size).toBe(3);
  });

  it('keeps the generation, the pid and the start time in boot.json, and leaves no temporary file', () => {
    const at = Date.UTC(2026, 11, 5, 3, 0, 0);
    nextBoot(dir, at);
    expect(JSON.parse(readFileSync(bootFile(dir), 'utf8'))).toEqual({
      generation: 1,
      pid: process.pid,
      startedAt: '2026-12-05T03:00:00.000Z',
    });
    expect(readdirSync(dir)).toEqual(['boot.json']);
  });

  it('creates the data dir when it does not exist yet', () => {
    const nested = join(dir, 'new', 'data');
    expect(nextBoot(nested).generation).toBe(1);
    expect(existsSync(bootFile(nested))).toBe(true);
  });

  it('without a data dir: generation 0 and nothing written', () => {
    const boot = nextBoot(undefined);
    expect(boot.generation).toBe(0);
    expect(boot.owner).toMatch(new RegExp(`^local-${process.pid}-[0-9a-f]{8}$`));
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['no generation', '{"pid": 1}'],
    ['a negative generation', '{"generation": -1}'],
    ['a fractional generation', '{"generation": 1.5}'],
    ['a generation as text', '{"generation": "3"}'],
  ])('a boot.json with %s is an error that says to remove the file', (_what, text) => {
    writeFileSync(bootFile(dir), text);
    expect(() => nextBoot(dir)).toThrow(
      `${bootFile(dir)}: no boot generation in it; remove the file to start counting again`,
    );
  });

  it('a boot.json that is not JSON is an error, not a silent restart of the count', () => {
    writeFileSync(bootFile(dir), '{"generation": 4');
    expect(() => nextBoot(dir)).toThrow(SyntaxError);
  });
});
