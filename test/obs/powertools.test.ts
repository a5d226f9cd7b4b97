import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../lib/obs/powertools.js';

function captureOutput(): { text: () => string } {
  const lines: string[] = [];
  const keep = (chunk: unknown): boolean => (lines.push(String(chunk)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  return { text: () => lines.join('') };
}

describe('Powertools metrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('an invocation with nothing stored flushes silently (no "no metrics" warning on every call)', () => {
    const out = captureOutput();
    const metrics = createMetrics('reprise-test', 'worker');
    metrics.count('Decision', 1, { name: 'decision', value: 'retried' }); // published on its own, at once
    const afterSingle = out.text();
    metrics.flush();
    vi.restoreAllMocks();
    expect(afterSingle).toContain('"Decision"');
    expect(out.text()).toBe(afterSingle);
  });

  it('stored metrics are still published by the flush', () => {
    const out = captureOutput();
    const metrics = createMetrics('reprise-test', 'worker');
    metrics.count('RerunRequested', 2);
    expect(out.text()).not.toContain('RerunRequested');
    metrics.flush();
    vi.restoreAllMocks();
    expect(out.text()).toContain('"RerunRequested":2');
  });
});
