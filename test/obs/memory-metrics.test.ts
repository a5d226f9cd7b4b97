import { describe, expect, it } from 'vitest';
import { MemoryMetrics, noMetrics } from '../../lib/obs/memory-metrics.js';

describe('MemoryMetrics', () => {
  it('adds each count to its name, one by default; an unseen name reads 0', () => {
    const m = new MemoryMetrics();
    m.count('Decisions');
    m.count('Decisions', 4);
    expect(m.get('Decisions')).toBe(5);
    expect(m.get('Reruns')).toBe(0);
  });

  it('keeps each dimension value apart from the others and from the bare name', () => {
    const m = new MemoryMetrics();
    m.count('Decisions', 1, { name: 'Decision', value: 'retried' });
    m.count('Decisions', 2, { name: 'Decision', value: 'genuine_failure' });
    m.count('Decisions', 1, { name: 'Decision', value: 'retried' });
    expect(m.get('Decisions{Decision=retried}')).toBe(2);
    expect(m.get('Decisions{Decision=genuine_failure}')).toBe(2);
    expect(m.get('Decisions')).toBe(0);
    expect([...m.totals.keys()].sort()).toEqual(['Decisions{Decision=genuine_failure}', 'Decisions{Decision=retried}']);
  });

  it('noMetrics takes every count and keeps nothing', () => {
    expect(() => noMetrics.count('Anything', 3, { name: 'd', value: 'v' })).not.toThrow();
  });
});
