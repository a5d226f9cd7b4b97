import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../lib/util/keyed-queue.js';

/** A task that finishes only when the test says so, and records when it ran. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const task = async () => {
    log.push(`${name} start`);
    await opened;
    log.push(`${name} end`);
    return name;
  };
  return { task, open };
}

describe('KeyedQueue', () => {
  it('runs the tasks of one key one at a time, in order; other keys run side by side', async () => {
    const q = new KeyedQueue<string>();
    const log: string[] = [];
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const results = [q.run('a', a1.task), q.run('a', a2.task), q.run('b', b1.task)];
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['a1 start', 'b1 start']);
    a2.open();
    b1.open();
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end']);
    a1.open();
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'b1']);
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
    await new Promise((r) => setTimeout(r, 0));
    expect(q.size).toBe(0);
  });

  it('a failed task fails its own caller only; the next task of the key still runs', async () => {
    const q = new KeyedQueue<number>();
    const failed = q.run(1, () => Promise.reject(new Error('boom')));
    const next = q.run(1, async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
  });
});
