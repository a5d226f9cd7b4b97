/**
 * The local runtime's word on its queue at start: in memory (nothing kept), or journaled to the
 * data dir, with which start on it this is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocal } from '../support/local.js';

const NOTHING_KEPT = 'no --data-dir: the ledger and the queue are in memory, and nothing is kept across restarts';
const LISTENING = 'reprise local runtime listening';
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the local runtime at start', () => {
  it('without --data-dir says it keeps nothing across restarts; with one, that its queue is journaled there and which start this is', async () => {
    const memory = await startLocal();
    try {
      expect(memory.log.named(NOTHING_KEPT)).toMatchObject([{ level: 'warn' }]);
      expect(memory.log.named(LISTENING)[0]).toMatchObject({ queue: 'in memory: nothing kept across restarts' });
    } finally {
      await memory.close();
    }
    const dir = mkdtempSync(join(tmpdir(), 'reprise-start-'));
    dirs.push(dir);
    for (const generation of [1, 2]) {
      const disk = await startLocal({ dataDir: dir });
      try {
        expect(disk.log.named(NOTHING_KEPT)).toEqual([]);
        expect(disk.log.named(LISTENING)[0]).toMatchObject({ queue: `journaled to dynalite at ${dir}`, generation });
        expect(disk.log.named('restart: queue and claims of earlier processes settled')).toMatchObject([
          { generation },
        ]);
      } finally {
        await disk.close();
      }
    }
  });
});
