import { int } from '../parsers.js';
import { def } from '../setting.js';

/** The retry budget's one window item holds this many units at most: ten times GitHub's 500 content-generating requests an hour. */
export const MAX_BUDGET_PER_HOUR = 5_000;

/** The pace of re-runs per installation, the optional hourly budget, and how long a run may wait for its slot. */
export const PACE_SETTINGS = {
  retryBudgetPerHour: def({
    env: 'RETRY_BUDGET_PER_HOUR',
    prop: 'retryBudgetPerHour',
    context: 'retryBudgetPerHour',
    default: 0,
    parse: int(0, MAX_BUDGET_PER_HOUR, 'one window item holds the hour'),
    readBy: ['worker'],
    local: true,
    sample: 60,
    doc: 'an optional hard ceiling on re-runs per installation and rolling hour (`0` = none), each repository within its share',
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
  paceRepositoryShare: def({
    env: 'PACE_REPOSITORY_SHARE_PERCENT',
    prop: 'paceRepositoryShare',
    context: 'paceRepositorySharePercent',
    default: 50,
    parse: int(1, 100),
    readBy: ['worker'],
    local: true,
    sample: 30,
    doc: "each repository's share of the retry budget (percent of `RETRY_BUDGET_PER_HOUR`); below 100, repositories also take turns in the installation's pace from the first slot (a turn not near is a place in the repository's line, laid out in rounds); 100 turns both off",
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
} as const;
