import { describe, expect, it } from 'vitest';
import { breakerSettings, eventSettings, intakeSettings, obsSettings } from '../../lib/config/function-settings.js';
import { RUNNER_PRESETS } from '../../lib/config/runner-presets.js';
import { ConfigError } from '../../lib/errors.js';

describe('eventSettings', () => {
  it("the account's default bus and no file unless set", () => {
    expect(eventSettings({})).toEqual({ busName: 'default' });
  });

  it('a bus by name or ARN, and the local file', () => {
    const arn = 'arn:aws:events:eu-west-1:123456789012:event-bus/ops';
    expect(eventSettings({ EVENT_BUS_NAME: arn, EVENTS_FILE: '/tmp/events.jsonl' })).toEqual({
      busName: arn,
      file: '/tmp/events.jsonl',
    });
  });
});

describe('breakerSettings', () => {
  it('reads seconds as milliseconds and a percent as a share', () => {
    expect(
      breakerSettings({
        BREAKER_MIN_OUTCOMES: '4',
        BREAKER_WINDOW_SECONDS: '600',
        BREAKER_LOST_SHARE_PERCENT: '25',
        BREAKER_COOL_DOWN_SECONDS: '120',
        BREAKER_MIN_REPOSITORIES: '2',
      }),
    ).toEqual({ minOutcomes: 4, windowMs: 600_000, lostShare: 0.25, coolDownMs: 120_000, minRepositories: 2 });
  });

  it("takes the schema's defaults when unset", () => {
    expect(breakerSettings({})).toEqual({
      minOutcomes: 10,
      windowMs: 1_800_000,
      lostShare: 0.5,
      coolDownMs: 1_800_000,
      minRepositories: 3,
    });
  });

  it('refuses a bad value, naming its variable', () => {
    expect(() => breakerSettings({ BREAKER_LOST_SHARE_PERCENT: '0' })).toThrow(ConfigError);
    expect(() => breakerSettings({ BREAKER_LOST_SHARE_PERCENT: '0' })).toThrow(/^BREAKER_LOST_SHARE_PERCENT: /);
  });
});

describe('intakeSettings', () => {
  it("joins the preset's name patterns and the operator's, each once", () => {
    const preset = RUNNER_PRESETS['runs-on'].namePatterns[0] as string;
    const s = intakeSettings({ RUNNER_PRESET: 'runs-on', RUNNER_NAME_PATTERNS: `${preset}\n^pool-(\\d+)$` });
    expect(s.runnerNamePatterns).toEqual([preset, '^pool-(\\d+)$']);
    expect(s.breaker.minOutcomes).toBe(10);
    expect(s.events).toEqual({ busName: 'default' });
  });

  it('has no name patterns without a preset or patterns', () => {
    expect(intakeSettings({}).runnerNamePatterns).toEqual([]);
  });
});

describe('obsSettings', () => {
  it('hands the log level on as written: Powertools reads it itself', () => {
    expect(obsSettings({ POWERTOOLS_LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(obsSettings({}).logLevel).toBeUndefined();
  });

  it('reads the metrics namespace, Reprise when unset or empty', () => {
    expect(obsSettings({ POWERTOOLS_METRICS_NAMESPACE: 'RepriseStaging' }).metricsNamespace).toBe('RepriseStaging');
    expect(obsSettings({}).metricsNamespace).toBe('Reprise');
    expect(obsSettings({ POWERTOOLS_METRICS_NAMESPACE: '' }).metricsNamespace).toBe('Reprise');
  });
});
