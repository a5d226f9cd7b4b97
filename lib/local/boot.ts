/**
 * What a start of the local runtime knows of the ones before it on the same data dir: its boot
 * generation (one more each start, kept in `<dataDir>/boot.json`), which names its claims, so a
 * claim of an earlier generation is known dead at once. The data dir is one process's: LevelDB
 * locks it, so two local runtimes cannot share it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** This start of the local runtime on a data dir: its generation and the owner its claims carry. */
export interface Boot {
  readonly generation: number;
  /** The owner this process's claims carry. */
  readonly owner: string;
}

/** Where a data dir keeps the last boot generation. */
export const bootFile = (dataDir: string): string => join(dataDir, 'boot.json');

function lastGeneration(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const generation = (JSON.parse(text) as { generation?: unknown }).generation;
  if (!Number.isSafeInteger(generation) || (generation as number) < 0) {
    throw new Error(`${file}: no boot generation in it; remove the file to start counting again`);
  }
  return generation as number;
}

/** Counts this start: the file is replaced whole (write, then rename), so a kill never leaves half of it. */
export function nextBoot(dataDir: string | undefined, now = Date.now()): Boot {
  const tag = `${process.pid}-${randomUUID().slice(0, 8)}`;
  if (!dataDir) return { generation: 0, owner: `local-${tag}` };
  mkdirSync(dataDir, { recursive: true });
  const file = bootFile(dataDir);
  const generation = lastGeneration(file) + 1;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ generation, pid: process.pid, startedAt: new Date(now).toISOString() })}\n`);
  renameSync(tmp, file);
  return { generation, owner: `local-g${generation}-${tag}` };
}
