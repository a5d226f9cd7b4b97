import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonLinesEvents } from '../../lib/events/jsonl-file.js';
import type { EventEnvelope } from '../../lib/events/kinds.js';
import type { RepriseEvent } from '../../lib/events/types.js';

describe('JsonLinesEvents', () => {
  const outcome = (runId: number): RepriseEvent => ({
    version: 1,
    kind: 'rerun_outcome',
    time: '2026-12-03T07:00:00.000Z',
    installation_id: 4242,
    repository: 'acme/events',
    run_id: runId,
    run_attempt: 2,
    outcome: 'recovered',
  });
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reprise-jsonl-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the missing folder and writes each event as one line in its EventBridge envelope', async () => {
    const path = join(dir, 'nested', 'deeper', 'events.jsonl');
    await new JsonLinesEvents(path).publish(outcome(1));
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(JSON.parse(lines[0]!)).toEqual({
      source: 'reprise',
      'detail-type': 'Reprise Re-run Outcome',
      time: '2026-12-03T07:00:00.000Z',
      detail: outcome(1),
    });
  });

  it('200 publishes at once leave 200 whole lines, in the order they were published', async () => {
    const path = join(dir, 'concurrent.jsonl');
    const events = new JsonLinesEvents(path);
    await Promise.all(Array.from({ length: 200 }, (_, i) => events.publish(outcome(i))));
    const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as EventEnvelope).detail.run_id)).toEqual(
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  it('a failed write fails its own publish only; the next publish of the same file still writes', async () => {
    // A file where the folder should be: mkdir refuses, and so the append.
    const blocker = join(dir, 'blocker');
    await writeFile(blocker, 'not a folder');
    const events = new JsonLinesEvents(join(blocker, 'events.jsonl'));
    await expect(events.publish(outcome(1))).rejects.toThrow();
    await rm(blocker);
    await events.publish(outcome(2));
    const lines = (await readFile(join(blocker, 'events.jsonl'), 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as EventEnvelope).detail.run_id)).toEqual([2]);
  });
});
