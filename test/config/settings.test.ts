import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { breakerSettings, eventSettings, deploymentSettings } from '../../lib/config/env.js';
import { applyConfig, BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { FUNCTION_NAMES, SETTING_NAMES, SETTINGS, settingOf } from '../../lib/config/settings-schema.js';
import { signalIntakeSettings, signalSettings } from '../../lib/config/signal-settings.js';
import { propsFromContext } from '../../infra/context.js';
import { PROJECT_ROOT } from '../../infra/functions/handlers.js';
import type { RepriseProps } from '../../infra/props/reprise-props.js';
import { resolveProps } from '../../infra/props/resolve.js';

const fromContext = (context: Record<string, unknown>) => propsFromContext(new App({ context }).node);

describe('bad values give clear errors naming the setting and the value', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['MAX_ATTEMPTS', { MAX_ATTEMPTS: '0' }, /^MAX_ATTEMPTS: expected a whole number from 1 to 50 .*got "0"$/],
    ['TEXT_ONLY_MAX_ATTEMPTS', { TEXT_ONLY_MAX_ATTEMPTS: 'two' }, /^TEXT_ONLY_MAX_ATTEMPTS: .*got "two"$/],
    ['DRY_RUN', { DRY_RUN: 'maybe' }, /^DRY_RUN: expected true or false, got "maybe"$/],
    [
      'STALE_CHECK',
      { STALE_CHECK: 'weekly' },
      /^STALE_CHECK: expected one of branch, pull_request, all, off, got "weekly"$/,
    ],
    ['REPORT', { REPORT: 'email' }, /^REPORT: expected one of log, check_run, got "email"$/],
    [
      'REPOSITORY_ALLOW_LIST',
      { REPOSITORY_ALLOW_LIST: 'org/a,org' },
      /^REPOSITORY_ALLOW_LIST: expected owner\/name, got "org"$/,
    ],
    [
      'GITHUB_API_URL',
      { GITHUB_API_URL: 'ftp://ghe' },
      /^GITHUB_API_URL: expected an http\(s\) URL, got "ftp:\/\/ghe"$/,
    ],
    ['MAX_WAIT_SECONDS', { MAX_WAIT_SECONDS: '30' }, /^MAX_WAIT_SECONDS: .*seconds from 60 to 43200.*got "30"$/],
    [
      'BREAKER_LOST_SHARE_PERCENT',
      { BREAKER_LOST_SHARE_PERCENT: '101' },
      /^BREAKER_LOST_SHARE_PERCENT: .*1 to 100.*"101"$/,
    ],
    [
      'LOST_COMPLETION_GRACE_SECONDS',
      { LOST_COMPLETION_GRACE_SECONDS: '-1' },
      /^LOST_COMPLETION_GRACE_SECONDS: .*"-1"$/,
    ],
    [
      'MAX_RECEIVE_COUNT',
      { MAX_RECEIVE_COUNT: '2' },
      /^MAX_RECEIVE_COUNT: expected a whole number from 5 to 1000, got "2"$/,
    ],
    [
      'SIGNAL_TTL_HOURS',
      { SIGNAL_TTL_HOURS: '0' },
      /^SIGNAL_TTL_HOURS: expected a whole number of hours ≥ 1, got "0"$/,
    ],
    ['RETRY_BUDGET_PER_HOUR', { RETRY_BUDGET_PER_HOUR: '1.5' }, /^RETRY_BUDGET_PER_HOUR: .*got "1.5"$/],
  ])('environment: %s', (_name, env, message) => {
    expect(() => deploymentSettings(env)).toThrow(message);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'workerBatchSize',
      { workerBatchSize: '11' },
      /^context workerBatchSize: .*from 1 to 10 \(FIFO limit\), got "11"$/,
    ],
    [
      'repositoryAllowList',
      { repositoryAllowList: 'org/a,nope' },
      /^context repositoryAllowList: .*owner\/name, got "nope"$/,
    ],
    [
      'maxWaitMinutes',
      { maxWaitMinutes: '1000' },
      /^context maxWaitMinutes \(1000 minutes\): .*60 to 43200.*got 60000$/,
    ],
    [
      'maxWaitMinutes (not a number)',
      { maxWaitMinutes: 'long' },
      /^context maxWaitMinutes: expected a number of minutes, got "long"$/,
    ],
    [
      'logRetentionDays',
      { logRetentionDays: '10' },
      /^context logRetentionDays: expected a CloudWatch retention.*got "10"$/,
    ],
    [
      'removalPolicy',
      { removalPolicy: 'snapshot' },
      /^context removalPolicy: expected one of retain, destroy, got "snapshot"$/,
    ],
    ['webhookAccess', { webhookAccess: 'alb' }, /^context webhookAccess: .*httpApi, functionUrl, got "alb"$/],
    ['dryRun', { dryRun: 'yes please' }, /^context dryRun: expected true or false, got "yes please"$/],
    ['alarmEmail', { alarmEmail: 'oncall' }, /^context alarmEmail: expected an e-mail address, got "oncall"$/],
  ])('context: %s', (_name, context, message) => {
    expect(() => fromContext(context)).toThrow(message);
  });

  it.each<[string, RepriseProps, RegExp]>([
    ['workerBatchSize', { workerBatchSize: 11 }, /^Reprise: workerBatchSize: .*from 1 to 10.*got 11$/],
    ['an empty allow-list', { repositoryAllowList: [] }, /^Reprise: repositoryAllowList: expected at least one item/],
    ['maxWait', { maxWait: Duration.hours(13) }, /^Reprise: maxWait: .*seconds from 60 to 43200.*got 46800$/],
    ['alarms.sweepFailures', { alarms: { sweepFailures: -1 } }, /^Reprise: alarms\.sweepFailures: .*≥ 0, got -1$/],
    [
      'staleCheck',
      { staleCheck: 'weekly' as 'all' },
      /^Reprise: staleCheck: expected one of branch, pull_request, all, off/,
    ],
  ])('props: %s', (_name, props, message) => {
    expect(() => resolveProps(props)).toThrow(message);
  });
});

describe('one source of defaults', () => {
  it('the runtime, the construct and the repository config take their defaults from the schema', () => {
    const rt = deploymentSettings({});
    const p = resolveProps({});
    expect(rt.defaults).toEqual(BUILT_IN_DEFAULTS);
    expect(BUILT_IN_DEFAULTS.maxAttempts).toBe(SETTINGS.maxAttempts.default);
    expect(p.maxAttempts).toBe(SETTINGS.maxAttempts.default);
    expect(rt.maxReceiveCount).toBe(SETTINGS.maxReceiveCount.default);
    expect(p.maxReceiveCount).toBe(SETTINGS.maxReceiveCount.default);
    expect(rt.signalWindow.beforeMs).toBe(p.signalWindowBefore.toMilliseconds());
    expect(rt.signalWindow.afterMs).toBe(p.signalWindowAfter.toMilliseconds());
    expect(rt.pace.maxWaitMs).toBe(p.maxWait.toMilliseconds());
    expect(rt.signalTtlSeconds).toBe(p.signalTtl.toSeconds());
    expect(rt.reconcile.completionGraceSeconds).toBe(p.lostCompletionGrace.toSeconds());
  });

  it('a repository may set exactly the keys the schema gives a repository key', () => {
    const keys = SETTING_NAMES.map((n) => settingOf(n).repoKey).filter((k): k is string => !!k);
    expect(keys).toContain('ignore_jobs');
    expect(() => applyConfig(BUILT_IN_DEFAULTS, { log_window_bytes: 1 })).toThrow(/unknown key/);
  });

  it('the deployment defaults read the same variables the schema names: IGNORE_JOBS, STALE_CHECK, REPORT, RERUN_ALL_FALLBACK', () => {
    const d = deploymentSettings({
      IGNORE_JOBS: 'all-green, deploy-*',
      STALE_CHECK: 'all',
      REPORT: 'check_run',
      RERUN_ALL_FALLBACK: 'true',
    }).defaults;
    expect(d).toMatchObject({ ignoreJobs: ['all-green', 'deploy-*'], staleCheck: 'all', report: 'check_run' });
    expect(d.rerunAllFallback).toBe(true);
  });
});

/** The variables a reader touches, recorded through a proxy environment. */
function readsOf(reader: (env: Record<string, string | undefined>) => unknown): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_t, key) => {
      if (typeof key === 'string') seen.add(key);
      return undefined;
    },
  });
  reader(env);
  return seen;
}

describe('the functions read only what the schema declares', () => {
  const envOfSchema = new Set(SETTING_NAMES.map((n) => settingOf(n).env).filter(Boolean));
  const readBy = (fn: string) =>
    SETTING_NAMES.map(settingOf)
      .filter((s) => s.env && s.readBy.includes(fn as never) && !s.env.startsWith('POWERTOOLS_'))
      .map((s) => s.env as string);

  it.each([
    ['worker', deploymentSettings],
    ['reconciler', deploymentSettings],
    [
      'intake',
      (env: Record<string, string | undefined>) => [breakerSettings(env), signalSettings(env), eventSettings(env)],
    ],
    ['signalIntake', signalIntakeSettings],
    ['ec2Signal', signalSettings],
  ] as const)(
    '%s: every variable its settings reader reads is a schema setting, and it reads all it is given',
    (fn, reader) => {
      const reads = readsOf(reader);
      expect([...reads].filter((k) => !envOfSchema.has(k))).toEqual([]);
      for (const env of readBy(fn)) expect(reads, env).toContain(env);
      expect(FUNCTION_NAMES).toContain(fn);
    },
  );
});

describe('the Lambda handlers read settings only through the schema', () => {
  const dir = join(PROJECT_ROOT, 'functions');
  // Powertools reads its own two variables; every other setting goes through a schema reader.
  const schemaEnv = SETTING_NAMES.map((n) => settingOf(n).env).filter(
    (e): e is string => !!e && !e.startsWith('POWERTOOLS_'),
  );

  it.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))(
    'functions/%s reads no schema setting raw from process.env (MAX_RECEIVE_COUNT included)',
    (file) => {
      const source = readFileSync(join(dir, file), 'utf8');
      const raw = [...source.matchAll(/process\.env(?:\.([A-Z_]+)|\[['"]([A-Z_]+)['"]\])/g)].map((m) => m[1] ?? m[2]);
      expect(raw.filter((v) => schemaEnv.includes(v as string))).toEqual([]);
    },
  );
});
