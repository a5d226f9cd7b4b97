import { describe, expect, it } from 'vitest';
import { RUNNER_PRESETS } from '../../lib/config/runner-presets.js';
import { RunnerKeys } from '../../lib/signals/runner-keys.js';

describe('RunnerKeys', () => {
  it('a runner named after its instance is known by its name and by the instance id at its end', () => {
    expect(new RunnerKeys().for('ci-spot-i-0123456789abcdef0')).toEqual([
      'ci-spot-i-0123456789abcdef0',
      'i-0123456789abcdef0',
    ]);
  });

  it('any other name is its only key; no runner has none', () => {
    expect(new RunnerKeys().for('GitHub Actions 12')).toEqual(['GitHub Actions 12']);
    expect(new RunnerKeys().for(null)).toEqual([]);
    expect(new RunnerKeys().for('')).toEqual([]);
  });

  it("a preset's pattern adds what its first group captures", () => {
    const keys = new RunnerKeys(RUNNER_PRESETS['runs-on'].namePatterns);
    expect(keys.for('runs-on--i-0123456789abcdef0--x1y2')).toEqual([
      'runs-on--i-0123456789abcdef0--x1y2',
      'i-0123456789abcdef0',
    ]);
  });

  it('a pattern without a group adds the whole match; each key once', () => {
    const keys = new RunnerKeys(['^pool-[a-z]+', '(i-[0-9a-f]{8,17})$']);
    expect(keys.for('pool-gpu-7-i-0123456789abcdef0')).toEqual([
      'pool-gpu-7-i-0123456789abcdef0',
      'i-0123456789abcdef0',
      'pool-gpu',
    ]);
  });
});
