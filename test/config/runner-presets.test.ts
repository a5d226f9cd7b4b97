import { describe, expect, it } from 'vitest';
import { RUNNER_PRESET_NAMES, RUNNER_PRESETS } from '../../lib/config/runner-presets.js';

/** The instance id a preset's name patterns find in a runner's name, if any. */
const instanceIn = (preset: keyof typeof RUNNER_PRESETS, name: string): string | undefined => {
  for (const p of RUNNER_PRESETS[preset].namePatterns) {
    const m = new RegExp(p).exec(name);
    if (m?.[1]) return m[1];
  }
  return undefined;
};

describe('runner presets', () => {
  it('names the four provisioners reprise knows', () => {
    expect(RUNNER_PRESET_NAMES).toEqual([
      'terraform-aws-github-runner',
      'cdk-github-runners',
      'runs-on',
      'actions-runner-controller',
    ]);
  });

  it('terraform-aws-github-runner: the instance id at the end of the name', () => {
    expect(instanceIn('terraform-aws-github-runner', 'ci-i-0123456789abcdef0')).toBe('i-0123456789abcdef0');
    expect(instanceIn('terraform-aws-github-runner', 'i-0123456789abcdef0-old')).toBeUndefined();
  });

  it('runs-on: the instance id between the double dashes', () => {
    expect(instanceIn('runs-on', 'runs-on--i-0123456789abcdef0--abc12')).toBe('i-0123456789abcdef0');
    expect(instanceIn('runs-on', 'other--i-0123456789abcdef0--abc12')).toBeUndefined();
  });

  it('cdk-github-runners joins by the Name tag; actions-runner-controller by the pod name alone', () => {
    expect(RUNNER_PRESETS['cdk-github-runners']).toEqual({ tagKeys: ['Name'], namePatterns: [] });
    expect(RUNNER_PRESETS['actions-runner-controller']).toEqual({ tagKeys: [], namePatterns: [] });
  });
});
