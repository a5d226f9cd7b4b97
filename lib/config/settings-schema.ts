import { ConfigError } from '../errors.js';
import { RUNNER_PRESET_NAMES } from './runner-presets.js';

/**
 * Every setting of reprise, declared once: where it can be set (environment variable, construct
 * prop, CDK context key, `.github/reprise.yml` key), its default, its parser and which deployed
 * functions read it. The local runtime, the Lambda functions, the construct, the context reader,
 * the repository config and the configuration tables of the docs all derive from this table.
 * Pure data and parsers: the signal functions bundle it, so it imports nothing heavy.
 */

/** The deployed functions, by the name the construct gives them. */
export type FunctionName = 'worker' | 'reconciler' | 'intake' | 'signalIntake' | 'ec2Signal';
export const FUNCTION_NAMES: readonly FunctionName[] = ['worker', 'reconciler', 'intake', 'signalIntake', 'ec2Signal'];

export type Value = number | boolean | string | readonly string[];
export type TimeUnit = 'seconds' | 'minutes' | 'hours';

/** Turns a raw value (a string from the environment or the command line, or a typed value) into a setting's value. */
export type Parser<V extends Value> = (raw: unknown, where: string) => V;

export interface Setting<V extends Value = Value> {
  /** Environment variable the functions and the local runtime read. */
  readonly env?: string;
  /** Construct prop (`alarms.x` for a field of `alarms`). */
  readonly prop?: string;
  /** CDK context key (`-c key=value`). */
  readonly context?: string;
  /** `.github/reprise.yml` key, where a repository may set it. */
  readonly repoKey?: string;
  /** The value's unit when it is a time: the prop is then a `Duration`. */
  readonly unit?: TimeUnit;
  /** The context key's unit, when it differs from `unit` (`maxWaitMinutes` for a value in seconds). */
  readonly contextUnit?: TimeUnit;
  /** Separator of a list in the environment. */
  readonly envSeparator?: string;
  readonly default: V | undefined;
  /** How the docs show the default when it is not a plain value. */
  readonly defaultText?: string;
  readonly parse: Parser<V>;
  /** Deployed functions that read it from their environment. */
  readonly readBy: readonly FunctionName[];
  /** Read by the local runtime (`npm start`) from its environment or `.env`. */
  readonly local: boolean;
  /** Set by the construct itself, not through the generic prop and context mapping. */
  readonly custom?: boolean;
  /** A valid value other than the default, in the setting's own unit: the parity test sets it everywhere. */
  readonly sample?: V;
  /** The values it takes, for the docs, where the doc line does not say. */
  readonly values?: string;
  /** What it does, in one line. */
  readonly doc: string;
}

const show = (raw: unknown): string => (typeof raw === 'string' ? JSON.stringify(raw) : String(JSON.stringify(raw)));

const fail = (where: string, expected: string, raw: unknown): never => {
  throw new ConfigError(`${where}: expected ${expected}, got ${show(raw)}`);
};

/** A whole number in [min, max]; `why` says where a bound comes from. */
export function int(min: number, max = Number.MAX_SAFE_INTEGER, why = '', unit = ''): Parser<number> {
  const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
  const expected = `a whole number${unit ? ` of ${unit}` : ''} ${range}${why ? ` (${why})` : ''}`;
  return (raw, where) => {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) return fail(where, expected, raw);
    return n;
  };
}

/** A percentage above 0 and at most 100 (fractions allowed). */
export const percent: Parser<number> = (raw, where) => {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!(n > 0 && n <= 100)) return fail(where, 'a percentage above 0 and at most 100', raw);
  return n;
};

export const bool: Parser<boolean> = (raw, where) => {
  if (typeof raw === 'boolean') return raw;
  const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (['true', '1', 'yes'].includes(s)) return true;
  if (['false', '0', 'no'].includes(s)) return false;
  return fail(where, 'true or false', raw);
};

export function oneOf<T extends string>(values: readonly T[], normalize: (s: string) => string = (s) => s): Parser<T> {
  return (raw, where) => {
    const s = typeof raw === 'string' ? normalize(raw.trim()) : undefined;
    if (s === undefined || !values.includes(s as T)) return fail(where, `one of ${values.join(', ')}`, raw);
    return s as T;
  };
}

/** A list: a JSON array, or a string split on `separator`; blank items are dropped. */
export function list(
  separator: RegExp,
  item?: { readonly test: RegExp; readonly what: string },
  nonEmpty = false,
): Parser<string[]> {
  return (raw, where) => {
    let items: string[];
    if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) items = raw as string[];
    else if (typeof raw === 'string') items = raw.split(separator);
    else return fail(where, 'a list of strings', raw);
    const out = items.map((s) => s.trim()).filter(Boolean);
    const bad = item && out.find((s) => !item.test.test(s));
    if (bad !== undefined && item) throw new ConfigError(`${where}: expected ${item.what}, got ${show(bad)}`);
    // An empty allow-list would read as "unset", which allows everything: refused instead.
    if (nonEmpty && out.length === 0) return fail(where, 'at least one item', raw);
    return out;
  };
}

/** An http(s) URL without trailing slashes. */
export const url: Parser<string> = (raw, where) => {
  if (typeof raw !== 'string') return fail(where, 'an http(s) URL', raw);
  try {
    const u = new URL(raw.trim());
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    return fail(where, 'an http(s) URL', raw);
  }
  return raw.trim().replace(/\/+$/, '');
};

export const text: Parser<string> = (raw, where) => {
  if (typeof raw !== 'string' || raw.trim() === '') return fail(where, 'a non-empty text', raw);
  return raw.trim();
};

/** Regular expressions, one per line; one that does not compile is refused with the engine's reason. */
const regexpLines: Parser<string[]> = (raw, where) => {
  const patterns = list(/\n/)(raw, where);
  for (const p of patterns) {
    try {
      new RegExp(p);
    } catch (err) {
      throw new ConfigError(`${where}: ${(err as Error).message}`);
    }
  }
  return patterns;
};

/** An EventBridge bus: its name, or its ARN (a bus of another account). */
const eventBus: Parser<string> = (raw, where) => {
  const v = typeof raw === 'string' ? raw.trim() : '';
  if (!/^(arn:[\w-]+:events:[\w-]+:\d{12}:event-bus\/)?[\w./-]{1,256}$/.test(v)) {
    return fail(where, 'an event bus name or ARN', raw);
  }
  return v;
};

const email: Parser<string> = (raw, where) => {
  if (typeof raw !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(raw.trim())) return fail(where, 'an e-mail address', raw);
  return raw.trim();
};

/** Retention periods CloudWatch Logs accepts, in days (9999: never expire). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653, 9999,
] as const;

const retention: Parser<number> = (raw, where) => {
  const n = int(1)(raw, where);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(n)) {
    return fail(where, `a CloudWatch retention in days (${LOG_RETENTION_DAYS.join(', ')})`, raw);
  }
  return n;
};

/** GitHub allows at most 50 re-runs of a run. */
export const MAX_ATTEMPTS_LIMIT = 50;

const ALL: readonly FunctionName[] = FUNCTION_NAMES;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

const def = <V extends Value, D extends V | undefined>(
  s: Setting<V> & { readonly default: D },
): Setting<V> & { readonly default: D } => s;

export const SETTINGS = {
  // Where GitHub is.
  githubApiUrl: def({
    env: 'GITHUB_API_URL',
    prop: 'githubApiUrl',
    context: 'githubUrl',
    default: 'https://api.github.com',
    parse: url,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'https://ghe.example.com/api/v3',
    doc: 'GitHub REST API base; `https://HOST/api/v3` for GitHub Enterprise Server',
  }),
  githubGraphqlUrl: def({
    env: 'GITHUB_GRAPHQL_URL',
    prop: 'githubGraphqlUrl',
    context: 'githubGraphqlUrl',
    default: undefined,
    defaultText: 'derived from the REST base',
    parse: url,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'https://ghe.example.com/api/graphql-proxy',
    doc: 'GitHub GraphQL endpoint, when it is not the usual one (`…/api/graphql` for GHES, else `…/graphql`)',
  }),
  repositoryAllowList: def({
    env: 'REPOSITORY_ALLOW_LIST',
    prop: 'repositoryAllowList',
    context: 'repositoryAllowList',
    envSeparator: ',',
    default: undefined,
    defaultText: 'all',
    parse: list(/,/, { test: REPO, what: 'owner/name' }, true),
    readBy: ['worker'],
    local: true,
    sample: ['org/a', 'org/b'],
    doc: 'comma-separated `owner/name` list; when set, runs of other repositories are `ignored`',
  }),
  logHosts: def({
    env: 'LOG_HOSTS',
    prop: 'logHosts',
    context: 'logHosts',
    envSeparator: ',',
    default: undefined,
    defaultText: "GitHub's log hosts",
    parse: list(/,/),
    readBy: ['worker'],
    local: true,
    sample: ['logs.example.com', '*.blob.example.net'],
    doc: "comma-separated hosts a job-log redirect may go to (`*.` wildcards); the API's own host is always allowed",
  }),

  // Decision defaults: a repository's `.github/reprise.yml` overrides them.
  enabled: def({
    repoKey: 'enabled',
    default: true,
    parse: bool,
    readBy: [],
    local: false,
    values: 'boolean',
    doc: '`false` makes every run of the repository `ignored`',
  }),
  workflows: def({
    repoKey: 'workflows',
    default: undefined,
    defaultText: 'all',
    parse: list(/,/),
    readBy: [],
    local: false,
    values: 'list of names',
    doc: 'only runs of these workflows (by name) are examined; others are `ignored`',
  }),
  maxAttempts: def({
    env: 'MAX_ATTEMPTS',
    prop: 'maxAttempts',
    context: 'maxAttempts',
    repoKey: 'max_attempts',
    default: 3,
    parse: int(1, MAX_ATTEMPTS_LIMIT, 'GitHub allows 50 re-runs of a run'),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 7,
    values: '1–50',
    doc: 'total attempts allowed when an exact signal (spot warning, termination, agent report) proves the loss',
  }),
  textOnlyMaxAttempts: def({
    env: 'TEXT_ONLY_MAX_ATTEMPTS',
    prop: 'textOnlyMaxAttempts',
    context: 'textOnlyMaxAttempts',
    repoKey: 'text_only_max_attempts',
    default: 2,
    parse: int(1, MAX_ATTEMPTS_LIMIT, 'GitHub allows 50 re-runs of a run'),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 4,
    values: '1–50',
    doc: 'total attempts allowed when the only evidence is text; clamped to the exact-signal cap',
  }),
  dryRun: def({
    env: 'DRY_RUN',
    prop: 'dryRun',
    context: 'dryRun',
    repoKey: 'dry_run',
    default: false,
    parse: bool,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: true,
    values: 'boolean',
    doc: 'decide and log `dry_run`, never re-run',
  }),
  requireExactSignal: def({
    env: 'REQUIRE_EXACT_SIGNAL',
    prop: 'requireExactSignal',
    context: 'requireExactSignal',
    repoKey: 'require_exact_signal',
    default: false,
    parse: bool,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: true,
    values: 'boolean',
    doc: 'text evidence alone never re-runs (`no_infra_evidence`)',
  }),
  rerunAllFallback: def({
    env: 'RERUN_ALL_FALLBACK',
    prop: 'rerunAllFallback',
    context: 'rerunAllFallback',
    repoKey: 'rerun_all_fallback',
    default: false,
    parse: bool,
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: true,
    values: 'boolean',
    doc: 'when GitHub refuses to re-run the failed jobs of a run whose candidates were all cancelled, re-run the whole run',
  }),
  staleCheck: def({
    env: 'STALE_CHECK',
    prop: 'staleCheck',
    context: 'staleCheck',
    repoKey: 'stale_check',
    default: 'pull_request',
    parse: oneOf(['pull_request', 'all', 'off'] as const),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'all',
    values: '`pull_request`, `all`, `off` (or `true`/`false`)',
    doc: 'which runs are checked for staleness: `pull_request`, `all` or `off`',
  }),
  report: def({
    env: 'REPORT',
    prop: 'report',
    context: 'report',
    repoKey: 'report',
    default: 'log',
    parse: oneOf(['log', 'check_run'] as const),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 'check_run',
    values: '`log`, `check_run`',
    doc: '`log`, or `check_run` for a `reprise` check run on the head commit (the App then needs `checks: write`)',
  }),
  extraPatterns: def({
    env: 'EXTRA_PATTERNS',
    prop: 'extraPatterns',
    context: 'extraPatterns',
    repoKey: 'extra_patterns',
    envSeparator: '\n',
    default: [],
    defaultText: 'none',
    // One pattern per line (the context reader also takes a literal `\n`: shells make newlines awkward in `-c`).
    parse: list(/\r?\n/),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: ['runner .* evicted', 'node \\S+ drained'],
    values: 'block of lines, or list',
    doc: 'extra runner-loss regular expressions (RE2 syntax), one per line',
  }),
  ignoreJobs: def({
    env: 'IGNORE_JOBS',
    prop: 'ignoreJobs',
    context: 'ignoreJobs',
    repoKey: 'ignore_jobs',
    envSeparator: ',',
    default: [],
    defaultText: 'none',
    parse: list(/,/),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: ['all-green', 'deploy-*'],
    values: 'list of names or globs',
    doc: 'job names or globs never examined (comma separated outside the repository file)',
  }),
  mergeQueue: def({
    repoKey: 'merge_queue',
    default: 'requeue',
    parse: oneOf(['requeue', 'rerun', 'off'] as const),
    readBy: [],
    local: false,
    values: '`requeue`, `rerun`, `off`',
    doc: 'a merge-group run lost to infrastructure: its pull request queued again, the run re-run, or left alone',
  }),
  maxRequeues: def({
    repoKey: 'max_requeues',
    default: 1,
    parse: int(1, 10),
    readBy: [],
    local: false,
    values: '1–10',
    doc: 'times one pull-request head is queued again; its next ejection by a lost runner is `attempt_cap`',
  }),

  // Pace, budget and breaker.
  retryBudgetPerHour: def({
    env: 'RETRY_BUDGET_PER_HOUR',
    prop: 'retryBudgetPerHour',
    context: 'retryBudgetPerHour',
    default: 0,
    parse: int(0),
    readBy: ['worker'],
    local: true,
    sample: 60,
    doc: 'an optional hard ceiling on re-runs per installation and rolling hour (`0` = none)',
  }),
  pacePerMinute: def({
    env: 'PACE_PER_MINUTE',
    prop: 'pacePerMinute',
    context: 'pacePerMinute',
    default: 80,
    parse: int(1),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 40,
    doc: "re-runs and reports per installation and minute, shared by every worker (GitHub's secondary limit)",
  }),
  pacePerHour: def({
    env: 'PACE_PER_HOUR',
    prop: 'pacePerHour',
    context: 'pacePerHour',
    default: 500,
    parse: int(0),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 300,
    doc: 're-runs and reports per installation in a rolling hour (`0` = no hourly limit)',
  }),
  maxWait: def({
    env: 'MAX_WAIT_SECONDS',
    prop: 'maxWait',
    context: 'maxWaitMinutes',
    unit: 'seconds',
    contextUnit: 'minutes',
    default: 6 * 3600,
    // One deferral of the message covers the wait: SQS hides a message at most 12 hours.
    parse: int(60, 12 * 3600, 'one SQS deferral: 1 minute to 12 hours', 'seconds'),
    readBy: ['worker'],
    local: true,
    sample: 5400,
    doc: 'how long a run may wait for its re-run turn before it is `expired`',
  }),
  writeSpacing: def({
    env: 'WRITE_SPACING_MS',
    prop: 'writeSpacingMs',
    context: 'writeSpacingMs',
    default: 350,
    // GitHub's secondary limit is 900 points a minute per endpoint, a POST costing 5: 180 a minute.
    parse: int(0, 60_000, '', 'milliseconds'),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 500,
    doc: "least time between two of an installation's re-run and report POSTs, in ms, and the pace's only spacing within its limits",
  }),
  workerConcurrency: def({
    env: 'WORKER_CONCURRENCY',
    default: 8,
    parse: int(1, 100),
    readBy: [],
    local: true,
    sample: 4,
    doc: "the local runtime's worker loops receiving from its queue (Lambda scales its own)",
  }),
  breakerMinOutcomes: def({
    env: 'BREAKER_MIN_OUTCOMES',
    prop: 'breakerMinOutcomes',
    context: 'breakerMinOutcomes',
    default: 10,
    parse: int(0),
    readBy: ['worker', 'intake', 'reconciler'],
    local: true,
    sample: 20,
    doc: 're-run outcomes of an installation in the breaker window before the breaker judges them (`0` = off)',
  }),
  breakerWindow: def({
    env: 'BREAKER_WINDOW_SECONDS',
    prop: 'breakerWindow',
    context: 'breakerWindowMinutes',
    unit: 'seconds',
    contextUnit: 'minutes',
    default: 1800,
    parse: int(1, undefined, '', 'seconds'),
    readBy: ['worker', 'intake', 'reconciler'],
    local: true,
    sample: 900,
    doc: 'the window of re-run outcomes the breaker judges',
  }),
  breakerLostSharePercent: def({
    env: 'BREAKER_LOST_SHARE_PERCENT',
    prop: 'breakerLostSharePercent',
    context: 'breakerLostSharePercent',
    default: 50,
    parse: int(1, 100),
    readBy: ['worker', 'intake', 'reconciler'],
    local: true,
    sample: 70,
    doc: "percent of those outcomes lost again at or above which the installation's automatic re-runs pause",
  }),
  breakerCoolDown: def({
    env: 'BREAKER_COOL_DOWN_SECONDS',
    prop: 'breakerCoolDown',
    context: 'breakerCoolDownMinutes',
    unit: 'seconds',
    contextUnit: 'minutes',
    default: 1800,
    parse: int(1, undefined, '', 'seconds'),
    readBy: ['worker', 'intake', 'reconciler'],
    local: true,
    sample: 2700,
    doc: 'how long automatic re-runs pause once the breaker opens',
  }),

  // Runner signals.
  signalWindowBefore: def({
    env: 'SIGNAL_WINDOW_BEFORE_SECONDS',
    prop: 'signalWindowBefore',
    context: 'signalWindowBeforeSeconds',
    unit: 'seconds',
    default: 600,
    parse: int(0, undefined, '', 'seconds'),
    readBy: ['worker'],
    local: true,
    sample: 1200,
    doc: "how long before a job's completion a runner signal still counts for it",
  }),
  signalWindowAfter: def({
    env: 'SIGNAL_WINDOW_AFTER_SECONDS',
    prop: 'signalWindowAfter',
    context: 'signalWindowAfterSeconds',
    unit: 'seconds',
    default: 300,
    parse: int(0, undefined, '', 'seconds'),
    readBy: ['worker'],
    local: true,
    sample: 120,
    doc: "how long after a job's completion a runner signal still counts for it",
  }),
  signalTtl: def({
    env: 'SIGNAL_TTL_HOURS',
    prop: 'signalTtl',
    context: 'signalTtlHours',
    unit: 'hours',
    default: 24,
    parse: int(1, undefined, '', 'hours'),
    readBy: ['worker', 'signalIntake', 'ec2Signal'],
    local: true,
    sample: 48,
    doc: 'how long runner signals are kept',
  }),
  runnerTagKeys: def({
    env: 'RUNNER_TAG_KEYS',
    prop: 'runnerTagKeys',
    context: 'runnerTagKeys',
    envSeparator: ',',
    default: [],
    defaultText: 'none',
    parse: list(/,/),
    readBy: ['ec2Signal'],
    local: true,
    sample: ['ghr:runner_name', 'Name'],
    doc: 'comma-separated EC2 tag keys whose values name the runner on an instance',
  }),
  runnerPreset: def({
    env: 'RUNNER_PRESET',
    prop: 'runnerPreset',
    context: 'runnerPreset',
    default: undefined,
    defaultText: 'none',
    parse: oneOf(RUNNER_PRESET_NAMES),
    readBy: ['intake', 'worker', 'ec2Signal'],
    local: true,
    sample: 'runs-on',
    values: RUNNER_PRESET_NAMES.join(', '),
    doc: "the runners' provisioner: adds the tag keys and runner-name patterns that join its runners' signals (docs/signals.md, runner presets)",
  }),
  runnerNamePatterns: def({
    env: 'RUNNER_NAME_PATTERNS',
    envSeparator: '\n',
    default: [],
    defaultText: 'none',
    parse: regexpLines,
    readBy: [],
    local: true,
    doc: 'local runtime: regular expressions, one per line, whose first group taken from a runner name is another key of its signals',
  }),

  // Reconciler.
  reconcileInterval: def({
    prop: 'reconcileInterval',
    context: 'reconcileIntervalMinutes',
    unit: 'minutes',
    default: 5,
    parse: int(1, 60, '', 'minutes'),
    readBy: [],
    local: false,
    doc: 'how often the deployed reconciler sweeps for orphaned claims, missed deliveries and lost completions',
  }),
  localReconcileInterval: def({
    env: 'RECONCILE_INTERVAL_SECONDS',
    unit: 'seconds',
    default: 60,
    parse: int(0, undefined, '', 'seconds'),
    readBy: [],
    local: true,
    doc: 'local runtime: seconds between reconciler sweeps (`0` = off)',
  }),
  stuckAfter: def({
    env: 'STUCK_AFTER_MINUTES',
    prop: 'stuckAfter',
    context: 'stuckAfterMinutes',
    repoKey: 'stuck_after',
    unit: 'minutes',
    default: 15,
    // GitHub fails a job that waited 24 hours for a runner: a longer wait would never report.
    parse: int(1, 24 * 60, 'GitHub fails a job after 24 hours queued', 'minutes'),
    readBy: ['worker', 'reconciler'],
    local: true,
    sample: 30,
    doc: 'how long a job may wait for a runner before the reconciler reports it stuck queued',
  }),
  eventBusName: def({
    env: 'EVENT_BUS_NAME',
    prop: 'eventBusName',
    context: 'eventBusName',
    default: 'default',
    parse: eventBus,
    readBy: ['intake', 'worker', 'reconciler'],
    local: false,
    sample: 'reprise-events',
    doc: 'EventBridge bus (name or ARN) that decisions, re-run outcomes and stuck-queued jobs are published to',
  }),
  eventsFile: def({
    env: 'EVENTS_FILE',
    default: undefined,
    defaultText: 'none',
    parse: text,
    readBy: [],
    local: true,
    doc: 'local runtime: a file each decision, re-run outcome and stuck-queued job is appended to as one JSON line',
  }),
  lostCompletionGrace: def({
    env: 'LOST_COMPLETION_GRACE_SECONDS',
    prop: 'lostCompletionGrace',
    context: 'lostCompletionGraceMinutes',
    unit: 'seconds',
    contextUnit: 'minutes',
    default: 1800,
    parse: int(60, undefined, '', 'seconds'),
    readBy: ['reconciler'],
    local: true,
    sample: 3600,
    doc: "how long a re-run's next attempt may stay silent before the reconciler reads the run",
  }),

  // Work queue and worker.
  maxReceiveCount: def({
    env: 'MAX_RECEIVE_COUNT',
    prop: 'maxReceiveCount',
    context: 'maxReceiveCount',
    default: 5,
    parse: int(5, 1000),
    readBy: ['worker'],
    local: false,
    sample: 8,
    doc: 'receives before a work message moves to the dead-letter queue',
  }),
  workerMaxConcurrency: def({
    prop: 'workerMaxConcurrency',
    context: 'workerMaxConcurrency',
    default: 5,
    // Lambda's SQS scaling control accepts 2..1000.
    parse: int(2, 1000, "Lambda's SQS maximum concurrency"),
    readBy: [],
    local: false,
    doc: 'worker invocations at once; bounds the request rate against GitHub',
  }),
  workerBatchSize: def({
    prop: 'workerBatchSize',
    context: 'workerBatchSize',
    default: 10,
    parse: int(1, 10, 'FIFO limit'),
    readBy: [],
    local: false,
    doc: 'messages per worker invocation',
  }),

  // Endpoints.
  webhookAccess: def({
    prop: 'webhookAccess',
    context: 'webhookAccess',
    custom: true,
    default: 'httpApi',
    parse: oneOf(['httpApi', 'functionUrl'] as const),
    readBy: [],
    local: false,
    doc: '`functionUrl` replaces the HTTP API by two Lambda function URLs (no throttle or access log)',
  }),
  apiRateLimit: def({
    context: 'apiRateLimit',
    custom: true,
    default: 100,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'HTTP API stage throttling, requests per second (`WebhookAccess.httpApi({ rateLimit })`)',
  }),
  apiBurstLimit: def({
    context: 'apiBurstLimit',
    custom: true,
    default: 600,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'HTTP API burst; takes two overlapping `workflow_job` waves of a 256-job matrix',
  }),

  // Operations.
  stackName: def({
    context: 'stackName',
    custom: true,
    default: 'Reprise',
    parse: text,
    readBy: [],
    local: false,
    doc: 'CloudFormation stack name',
  }),
  alarmEmail: def({
    prop: 'alarmEmail',
    context: 'alarmEmail',
    default: undefined,
    defaultText: 'none',
    parse: email,
    readBy: [],
    local: false,
    doc: 'e-mail address subscribed to the alarm topic',
  }),
  bundleAwsSdk: def({
    prop: 'bundleAwsSdk',
    context: 'bundleAwsSdk',
    default: false,
    parse: bool,
    readBy: [],
    local: false,
    doc: "bundle the AWS SDK into each function instead of using the Lambda runtime's copy",
  }),
  metricsNamespace: def({
    env: 'POWERTOOLS_METRICS_NAMESPACE',
    prop: 'metricsNamespace',
    context: 'metricsNamespace',
    default: 'Reprise',
    parse: text,
    readBy: ALL,
    local: false,
    sample: 'RepriseStaging',
    doc: "CloudWatch namespace of the functions' metrics",
  }),
  logLevel: def({
    env: 'POWERTOOLS_LOG_LEVEL',
    prop: 'logLevel',
    context: 'logLevel',
    default: 'INFO',
    parse: oneOf(['DEBUG', 'INFO', 'WARN', 'ERROR'] as const, (s) => s.toUpperCase()),
    readBy: ALL,
    local: true,
    sample: 'DEBUG',
    doc: 'log level: `DEBUG`, `INFO`, `WARN` or `ERROR`',
  }),
  logRetention: def({
    prop: 'logRetention',
    context: 'logRetentionDays',
    default: 30,
    parse: retention,
    readBy: [],
    local: false,
    doc: 'retention of every function and access log group, in days',
  }),
  removalPolicy: def({
    prop: 'removalPolicy',
    context: 'removalPolicy',
    default: 'retain',
    parse: oneOf(['retain', 'destroy'] as const, (s) => s.toLowerCase()),
    readBy: [],
    local: false,
    doc: '`destroy` lets `cdk destroy` delete the table, the secrets and the log groups',
  }),

  // The local runtime's listeners (`npm start`; `--port` and `--admin-port` win over them).
  port: def({
    env: 'PORT',
    default: 3000,
    parse: int(0, 65535),
    readBy: [],
    local: true,
    doc: 'local HTTP port (the one to expose to GitHub)',
  }),
  adminPort: def({
    env: 'ADMIN_PORT',
    default: undefined,
    defaultText: 'PORT + 1',
    parse: int(0, 65535),
    readBy: [],
    local: true,
    doc: 'local operator port (`/decisions`, `/report-facts`, `/replay`), on 127.0.0.1 only, token required',
  }),
  host: def({
    env: 'HOST',
    default: '127.0.0.1',
    parse: text,
    readBy: [],
    local: true,
    doc: 'address the local HTTP port listens on',
  }),

  // Alarm thresholds.
  rerunsPerHourThreshold: def({
    prop: 'alarms.rerunsPerHour',
    context: 'rerunsPerHourThreshold',
    default: 30,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'alarm: re-runs in one hour above which it fires',
  }),
  rerunShareThreshold: def({
    prop: 'alarms.rerunSharePercent',
    context: 'rerunShareThreshold',
    default: 50,
    parse: percent,
    readBy: [],
    local: false,
    doc: 'alarm: percent of decided runs that were re-run above which it fires',
  }),
  rerunShareMinDecisions: def({
    prop: 'alarms.rerunShareMinDecisions',
    context: 'rerunShareMinDecisions',
    default: 10,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'alarm: decided runs per hour needed before the share alarm may fire',
  }),
  recoveryShareThreshold: def({
    prop: 'alarms.recoverySharePercent',
    context: 'recoveryShareThreshold',
    default: 50,
    parse: percent,
    readBy: [],
    local: false,
    doc: 'alarm: percent of re-run attempts that recovered in an hour below which it fires',
  }),
  recoveryShareMinOutcomes: def({
    prop: 'alarms.recoveryShareMinOutcomes',
    context: 'recoveryShareMinOutcomes',
    default: 5,
    parse: int(1),
    readBy: [],
    local: false,
    doc: 'alarm: re-run outcomes per hour needed before the recovery-share alarm may fire',
  }),
  signatureFailureThreshold: def({
    prop: 'alarms.signatureFailures',
    context: 'signatureFailureThreshold',
    default: 5,
    parse: int(0),
    readBy: [],
    local: false,
    doc: 'alarm: webhook signature failures in five minutes above which it fires',
  }),
  rateLimitRemainingThreshold: def({
    prop: 'alarms.rateLimitRemaining',
    context: 'rateLimitRemainingThreshold',
    default: 500,
    parse: int(0),
    readBy: [],
    local: false,
    doc: 'alarm: GitHub rate limit remaining below which it fires',
  }),
  oldestMessageAgeThreshold: def({
    prop: 'alarms.oldestMessageAge',
    context: 'oldestMessageAgeMinutes',
    unit: 'minutes',
    default: 15,
    parse: int(1, undefined, '', 'minutes'),
    readBy: [],
    local: false,
    doc: 'alarm: age of the oldest work message above which it fires',
  }),
  sweepFailureThreshold: def({
    prop: 'alarms.sweepFailures',
    context: 'sweepFailureThreshold',
    default: 1,
    parse: int(0),
    readBy: [],
    local: false,
    doc: 'alarm: failed reconciler sweeps in 15 minutes above which it fires',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type ValueOf<K extends SettingName> = (typeof SETTINGS)[K] extends Setting<infer V> ? V : never;
/** What reading a setting yields: its value, or its default when unset (undefined when it has none). */
export type ReadOf<K extends SettingName> = ValueOf<K> | (typeof SETTINGS)[K]['default'];
/** Every setting's value (undefined: unset, and no default). */
export type SettingValues = { readonly [K in SettingName]: ValueOf<K> | undefined };

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

export const settingOf = (name: SettingName): Setting => SETTINGS[name] as Setting;

type Env = Readonly<Record<string, string | undefined>>;

/** One setting from the environment: its default when unset or empty, else its parsed value. */
export function fromEnv<K extends SettingName>(env: Env, name: K): ReadOf<K> {
  const s = settingOf(name);
  if (s.env === undefined) throw new Error(`${name} has no environment variable`);
  const raw = env[s.env];
  if (raw === undefined || raw.trim() === '') return s.default as ReadOf<K>;
  return s.parse(raw, s.env) as ReadOf<K>;
}

/** The environment variable's text for a value. */
export function toEnvValue(s: Setting, value: Value): string {
  return Array.isArray(value) ? value.join(s.envSeparator ?? ',') : String(value);
}

const SECONDS: Record<TimeUnit, number> = { seconds: 1, minutes: 60, hours: 3600 };

/** Converts a time between units (a context key in minutes for a value in seconds). */
export const convertTime = (n: number, from: TimeUnit, to: TimeUnit): number => (n * SECONDS[from]) / SECONDS[to];

/** Default shown in the docs. */
export function defaultText(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined) return 'none';
  return Array.isArray(s.default) ? s.default.join(', ') : String(s.default);
}

/** The default in a context key's unit (`maxWaitMinutes` shows 360). */
export function contextDefaultText(s: Setting): string {
  if (typeof s.default === 'number' && s.unit && s.contextUnit) {
    return String(convertTime(s.default, s.unit, s.contextUnit));
  }
  return defaultText(s);
}
