/**
 * Key layout of reprise's single DynamoDB table (`pk`, `sk`, `ttl`).
 * Every item carries `ttl` (epoch seconds) so the table never grows without bound.
 */
const DAY = 24 * 60 * 60;

export const TTL = {
  delivery: 8 * DAY,
  runAttempt: 35 * DAY,
  signalDefault: DAY,
  jobRunner: DAY,
  /** Outlives GitHub's redelivery window (3 days, 7 on GHES), so a redelivery is never repeated. */
  redelivery: 8 * DAY,
  /** Twice the budget's rolling hour: the window Query never misses an item TTL has not yet removed. */
  budgetSpend: 2 * 60 * 60,
  reconcileCursor: 30 * DAY,
} as const;

export const keys = {
  delivery: (guid: string) => ({ pk: `DELIVERY#${guid}`, sk: 'DELIVERY' }),
  runAttempt: (repoId: number, runId: number, attempt: number) => ({
    pk: `RUN#${repoId}#${runId}`,
    sk: `ATTEMPT#${String(attempt).padStart(3, '0')}`,
  }),
  /** Signals are keyed by runner identity and sorted by event time, so a window is one Query. */
  runnerSignal: (runnerKey: string, eventTime: string, eventId: string) => ({
    pk: `RUNNER#${runnerKey}`,
    sk: `SIGNAL#${eventTime}#${eventId}`,
  }),
  runnerSignalPrefix: (runnerKey: string) => `RUNNER#${runnerKey}`,
  /** A job in progress on a runner, keyed by runner so an interruption can count its jobs. */
  runnerJob: (runnerKey: string, jobId: number) => ({ pk: `RUNNERJOB#${runnerKey}`, sk: `JOB#${jobId}` }),
  runnerJobPrefix: (runnerKey: string) => `RUNNERJOB#${runnerKey}`,
  /** Where a reconciler sweep resumes (a ledger scan key, a deliveries cursor). */
  reconcileCursor: (name: string) => ({ pk: `CURSOR#${name}`, sk: 'CURSOR' }),
  /** One per delivery GUID the reconciler asked GitHub to redeliver. */
  redelivery: (guid: string) => ({ pk: `REDELIVERY#${guid}`, sk: 'REDELIVERY' }),
  /** Beside the run attempt: the reconciler released this attempt's orphaned claim once. */
  reclaim: (repoId: number, runId: number, attempt: number) => ({
    pk: `RUN#${repoId}#${runId}`,
    sk: `RECLAIM#${String(attempt).padStart(3, '0')}`,
  }),
  /** One item per re-run, sorted by time, so the rolling hour of an installation is one Query. */
  budgetSpend: (installationId: number | null, atIso: string, runKey: string) => ({
    pk: keys.budgetPrefix(installationId),
    sk: `AT#${atIso}#${runKey}`,
  }),
  budgetPrefix: (installationId: number | null) => `BUDGET#${installationId ?? 'none'}`,
} as const;

export const ttlFrom = (nowMs: number, seconds: number): number => Math.floor(nowMs / 1000) + seconds;
