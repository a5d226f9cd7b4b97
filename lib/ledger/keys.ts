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
} as const;

export const ttlFrom = (nowMs: number, seconds: number): number => Math.floor(nowMs / 1000) + seconds;
