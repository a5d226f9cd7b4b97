import { describe, expect, it } from 'vitest';
import {
  RECONCILE_PAGES_PER_SWEEP,
  reconcilerSettings,
  deploymentSettings,
  webhookSecretsFrom,
  workerSettings,
} from '../../lib/config/env.js';
import { DEFAULT_LOG_HOSTS } from '../../lib/config/github-settings.js';
import { BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { RUNNER_PRESETS } from '../../lib/config/runner-presets.js';
import { ConfigError } from '../../lib/errors.js';

describe('workerSettings', () => {
  it('nothing set: github.com, the built-in decision defaults, no allow-list', () => {
    const s = workerSettings({});
    expect(s.apiUrl).toBe('https://api.github.com');
    expect(s.graphqlUrl).toBe('https://api.github.com/graphql');
    expect(s.defaults).toEqual(BUILT_IN_DEFAULTS);
    expect(s.logHosts).toEqual([...DEFAULT_LOG_HOSTS, 'api.github.com']);
    expect(s).not.toHaveProperty('repositoryAllowList');
    expect(s).not.toHaveProperty('runnerTagKeys');
    expect(s).not.toHaveProperty('reconcile');
  });

  it('a GHES API base gives its GraphQL beside it, unless GITHUB_GRAPHQL_URL says otherwise', () => {
    expect(workerSettings({ GITHUB_API_URL: 'https://ghe.example/api/v3' }).graphqlUrl).toBe(
      'https://ghe.example/api/graphql',
    );
    expect(
      workerSettings({ GITHUB_API_URL: 'https://ghe.example/api/v3', GITHUB_GRAPHQL_URL: 'https://gql.example/x' })
        .graphqlUrl,
    ).toBe('https://gql.example/x');
  });

  it('decision settings become the deployment defaults; a blank one keeps the built-in value', () => {
    const s = workerSettings({ MAX_ATTEMPTS: '5', DRY_RUN: 'true', STALE_CHECK: ' ' });
    expect(s.defaults.maxAttempts).toBe(5);
    expect(s.defaults.dryRun).toBe(true);
    expect(s.defaults.staleCheck).toBe(BUILT_IN_DEFAULTS.staleCheck);
  });

  it('seconds and percentages are read into the units the code uses', () => {
    const s = workerSettings({
      SIGNAL_WINDOW_BEFORE_SECONDS: '60',
      SIGNAL_WINDOW_AFTER_SECONDS: '30',
      SIGNAL_TTL_HOURS: '2',
      MAX_WAIT_SECONDS: '90',
      PACE_REPOSITORY_SHARE_PERCENT: '25',
    });
    expect(s.signalWindow).toEqual({ beforeMs: 60_000, afterMs: 30_000 });
    expect(s.signalTtlSeconds).toBe(7200);
    expect(s.pace.maxWaitMs).toBe(90_000);
    expect(s.pace.repositoryShare).toBe(0.25);
  });

  it('an invalid decision default is a ConfigError that says it is the deployment’s', () => {
    expect(() => workerSettings({ MAX_ATTEMPTS: 'lots' })).toThrow(ConfigError);
    expect(() => workerSettings({ MAX_ATTEMPTS: 'lots' })).toThrow(/MAX_ATTEMPTS/);
    expect(() => workerSettings({ EXTRA_PATTERNS: '(a)\\1' })).toThrow(/^deployment defaults: /);
  });

  it('the repository ceiling and the allow-list', () => {
    const s = workerSettings({
      REPO_MAX_ATTEMPTS_CEILING: '4',
      REPO_EXTRA_PATTERNS: 'false',
      REPOSITORY_ALLOW_LIST: 'acme/a,acme/b',
    });
    expect(s.repoCeiling).toEqual({ maxAttempts: 4, extraPatterns: false });
    expect(s.repositoryAllowList).toEqual(['acme/a', 'acme/b']);
  });

  it('RUNNER_PRESET adds its name patterns before those given by hand, each once', () => {
    const preset = RUNNER_PRESETS['runs-on'].namePatterns[0]!;
    const s = workerSettings({ RUNNER_PRESET: 'runs-on', RUNNER_NAME_PATTERNS: `${preset}\nx-(\\d+)` });
    expect(s.runnerNamePatterns).toEqual([preset, 'x-(\\d+)']);
  });
});

describe('reconcilerSettings', () => {
  it('reads the decision defaults and the grace, and has no local timer', () => {
    const s = reconcilerSettings({ REPORT: 'check_run', LOST_COMPLETION_GRACE_SECONDS: '120' });
    expect(s.defaults.report).toBe('check_run');
    expect(s.reconcile).toEqual({
      intervalSeconds: 0,
      completionGraceSeconds: 120,
      pagesPerSweep: RECONCILE_PAGES_PER_SWEEP,
    });
    expect(Object.keys(s.pace).sort()).toEqual(['perHour', 'perMinute', 'spacingMs']);
  });
});

describe('deploymentSettings', () => {
  it("the local runtime reads every part: the worker's, the EC2 tag keys and the timer", () => {
    const s = deploymentSettings({ RUNNER_TAG_KEYS: 'Name,runner', RECONCILE_INTERVAL_SECONDS: '0' });
    expect(s.runnerTagKeys).toEqual(['Name', 'runner']);
    expect(s.reconcile.intervalSeconds).toBe(0);
    expect(s.defaults).toEqual(workerSettings({}).defaults);
  });
});

describe('webhookSecretsFrom', () => {
  it('the current secret, then the previous one during a rotation; empty ones left out', () => {
    expect(webhookSecretsFrom({ WEBHOOK_SECRET: 'new', WEBHOOK_SECRET_PREVIOUS: 'old' })).toEqual(['new', 'old']);
    expect(webhookSecretsFrom({ WEBHOOK_SECRET: 'new', WEBHOOK_SECRET_PREVIOUS: '' })).toEqual(['new']);
    expect(webhookSecretsFrom({})).toEqual([]);
  });
});
