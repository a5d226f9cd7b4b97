import { describe, expect, it } from 'vitest';
import { RUNNER_PRESETS } from '../../lib/config/runner-presets.js';
import {
  DEFAULT_SIGNAL_WINDOW,
  parseSignalSecretValue,
  runnerNamePatternsFrom,
  runnerTagKeysFrom,
  signalIntakeSettings,
  signalSecretsFrom,
  signalSettings,
} from '../../lib/config/signal-settings.js';
import { ConfigError } from '../../lib/errors.js';

describe('signal secrets', () => {
  it('locally: SIGNAL_SECRETS with their scopes, then SIGNAL_SECRET with SIGNAL_SCOPE (every installation unless set)', () => {
    expect(signalSecretsFrom({ SIGNAL_SECRET: 'one' })).toEqual([{ secret: 'one', scope: ['*'] }]);
    expect(
      signalSecretsFrom({ SIGNAL_SECRET: 'one', SIGNAL_SCOPE: 'acme', SIGNAL_SECRETS: 'two installation:9' }),
    ).toEqual([
      { secret: 'two', scope: ['installation:9'] },
      { secret: 'one', scope: ['acme'] },
    ]);
  });

  it('deployed: the plain secret or {secret, previous} take the configured scope; "scoped" adds secrets of their own', () => {
    expect(parseSignalSecretValue('plain', 'signal secret', ['acme'])).toEqual([{ secret: 'plain', scope: ['acme'] }]);
    expect(
      parseSignalSecretValue(
        JSON.stringify({ secret: 'cur', previous: 'old', scoped: 'mine other-org' }),
        'signal secret',
        ['*'],
      ),
    ).toEqual([
      { secret: 'mine', scope: ['other-org'] },
      { secret: 'cur', scope: ['*'] },
      { secret: 'old', scope: ['*'] },
    ]);
    expect(parseSignalSecretValue(JSON.stringify({ scoped: 'only acme' }), 'signal secret', ['*'])).toEqual([
      { secret: 'only', scope: ['acme'] },
    ]);
    expect(() => parseSignalSecretValue('{"scoped": 3}', 'signal secret', ['*'])).toThrow(/"scoped" must be a string/);
  });

  it('a deployed value that does not parse, or is empty, is refused naming the secret', () => {
    expect(() => parseSignalSecretValue('{"secret": ', 'signal secret', ['*'])).toThrow(
      new ConfigError('signal secret: looks like JSON but does not parse'),
    );
    expect(() => parseSignalSecretValue('  ', 'signal secret', ['*'])).toThrow(
      new ConfigError('signal secret: the secret is empty'),
    );
  });
});

describe("the signal functions' settings", () => {
  it('defaults: a window around the job, a TTL in seconds, no tag keys or name patterns, every installation', () => {
    expect(DEFAULT_SIGNAL_WINDOW.beforeMs).toBeGreaterThan(0);
    expect(DEFAULT_SIGNAL_WINDOW.afterMs).toBeGreaterThan(0);
    const s = signalSettings({});
    expect(s.tagKeys).toEqual([]);
    expect(s.namePatterns).toEqual([]);
    expect(s.ttlSeconds % 3600).toBe(0);
    expect(signalIntakeSettings({}).scope).toEqual(['*']);
  });

  it('SIGNAL_TTL_HOURS and SIGNAL_TIMESTAMP_TOLERANCE_SECONDS are read into seconds and ms', () => {
    expect(signalSettings({ SIGNAL_TTL_HOURS: '3' }).ttlSeconds).toBe(10_800);
    expect(signalIntakeSettings({ SIGNAL_TIMESTAMP_TOLERANCE_SECONDS: '120', SIGNAL_SCOPE: 'Acme' })).toEqual({
      ttlSeconds: signalSettings({}).ttlSeconds,
      toleranceMs: 120_000,
      scope: ['acme'],
    });
  });

  it("a preset's tag keys and name patterns come first, then those given by hand, each once", () => {
    const env = { RUNNER_PRESET: 'cdk-github-runners', RUNNER_TAG_KEYS: 'runner,Name' };
    expect(runnerTagKeysFrom(env)).toEqual(['Name', 'runner']);
    const tf = RUNNER_PRESETS['terraform-aws-github-runner'].namePatterns;
    expect(runnerNamePatternsFrom({ RUNNER_PRESET: 'terraform-aws-github-runner' })).toEqual([...tf]);
  });

  it('an unknown preset is refused', () => {
    expect(() => runnerTagKeysFrom({ RUNNER_PRESET: 'homegrown' })).toThrow(/RUNNER_PRESET/);
  });
});
