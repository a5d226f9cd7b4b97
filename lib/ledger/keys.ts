/**
 * Key layout of reprise's single DynamoDB table (`pk`, `sk`, `ttl`): every key and key range
 * is built here. Every item carries `ttl` (epoch seconds) so the table never grows without bound.
 */
const DAY = 24 * 60 * 60;

/** How long each kind of item is kept before DynamoDB's TTL removes it, in seconds. */
export const TTL = {
  delivery: 8 * DAY,
  runAttempt: 35 * DAY,
  jobRunner: DAY,
  /** Outlives GitHub's redelivery window (3 days, 7 on GHES), so a redelivery is never repeated. */
  redelivery: 8 * DAY,
  /** The budget looks back one hour; an installation quiet for two starts afresh. */
  budgetWindow: 2 * 60 * 60,
  reconcileCursor: 30 * DAY,
  /** The pace looks back one hour; an installation quiet for two starts afresh. */
  pacing: 2 * 60 * 60,
  /** A re-run attempt's outcome lives as long as the attempt it belongs to. */
  rerunOutcome: 35 * DAY,
  /** GitHub fails a job queued for 24 hours: a queued job never outlives two days here. */
  queuedJob: 2 * DAY,
  /** A pull request's re-enqueues live as long as a run attempt's record. */
  requeue: 35 * DAY,
  /** GitHub re-runs nothing older than 30 days: a branch's newest run is not needed longer. */
  branchRun: 31 * DAY,
  /** A cluster's last pod listing, for `reprise status`: a week after a cluster was last asked. */
  eksListing: 7 * DAY,
  /** An early end outlives GitHub's 30-day re-run window, as the attempt it belongs to does. */
  recovery: 35 * DAY,
  /** A run waiting for its healthy jobs to end: no job runs longer than GitHub's 72-hour limit. */
  recoveryWait: 3 * DAY,
  /** A pause without an end lasts until resumed; its item is kept a year past its last write. */
  pause: 366 * DAY,
  /** A pause with an end is read as over at its end; its item goes a day later. */
  pauseAfterEnd: DAY,
} as const;

/** An item's primary key: partition and sort key. */
export interface Key {
  readonly pk: string;
  readonly sk: string;
}

/** A sort-key range within one partition: one Query. */
export interface KeyRange {
  readonly pk: string;
  readonly sk?: { readonly after: string } | { readonly between: readonly [string, string] };
}

const attemptNo = (attempt: number) => String(attempt).padStart(3, '0');
const budgetPk = (installationId: number | null) => `BUDGET#${installationId ?? 'none'}`;
const queuedPk = (installationId: number | null) => `QUEUED#${installationId ?? 'none'}`;
const outcomesPk = (installationId: number | null) => `OUTCOMES#${installationId ?? 'none'}`;

/** Every key the ledger writes, by item kind: the one place the table's key layout is spelled. */
export const keys = {
  delivery: (guid: string): Key => ({ pk: `DELIVERY#${guid}`, sk: 'DELIVERY' }),
  runAttempt: (repoId: number, runId: number, attempt: number): Key => ({
    pk: `RUN#${repoId}#${runId}`,
    sk: `ATTEMPT#${attemptNo(attempt)}`,
  }),
  /** Prefixes a Scan filters on: every run attempt, and nothing else under a run. */
  runAttemptPrefixes: { pk: 'RUN#', sk: 'ATTEMPT#' },
  /** Prefixes a Scan filters on: re-run outcome markers (and the run partition's, as written before), runner signals. */
  rerunOutcomePrefixes: { pk: 'RUNOUTCOME#', sk: 'OUTCOME#' },
  runnerSignalPrefixes: { pk: 'RUNNER#', sk: 'SIGNAL#' },
  /** The run id in a run's partition key (`RUN#<repoId>#<runId>`). */
  runIdOf: (pk: string): number => Number(pk.split('#')[2]),
  /** Beside the run attempt: the reconciler released this attempt's orphaned claim once. */
  reclaim: (repoId: number, runId: number, attempt: number): Key => ({
    pk: `RUN#${repoId}#${runId}`,
    sk: `RECLAIM#${attemptNo(attempt)}`,
  }),
  /**
   * Signals are keyed by runner identity and sorted by event time, so a window is one Query. An
   * agent's record names the scope that wrote it (`scopeTag`), so another scope's post of the same
   * event id is a record of its own; the fleet's EC2 records carry none.
   */
  runnerSignal: (runnerKey: string, eventTime: string, eventId: string, scopeTag?: string): Key => ({
    pk: `RUNNER#${runnerKey}`,
    sk: `SIGNAL#${eventTime}#${eventId}${scopeTag === undefined ? '' : `#BY#${scopeTag}`}`,
  }),
  /** A runner's signals between two ISO times; `~` sorts after every event id. */
  runnerSignalsBetween: (runnerKey: string, fromIso: string, toIso: string): KeyRange => ({
    pk: `RUNNER#${runnerKey}`,
    sk: { between: [`SIGNAL#${fromIso}`, `SIGNAL#${toIso}~`] },
  }),
  /**
   * When an agent's post without a time was first received, so its retries share one time: per
   * scope, so another scope posting the same body first cannot set this one's time.
   */
  signalPost: (eventId: string, scopeTag?: string): Key => ({
    pk: scopeTag === undefined ? `SIGNALPOST#${eventId}` : `SIGNALPOST#${scopeTag}#${eventId}`,
    sk: 'FIRST_SEEN',
  }),
  /** An HMAC signature an agent's post used: a second post under it is a replay. */
  signalSignature: (signature: string): Key => ({ pk: `SIGNALSIG#${signature}`, sk: 'USED' }),
  /** The last pod listing of one EKS cluster by the EC2 signal: one partition, so status reads all in one Query. */
  eksListing: (cluster: string): Key => ({ pk: 'EKSLISTING', sk: `CLUSTER#${cluster}` }),
  eksListings: { pk: 'EKSLISTING' } as KeyRange,
  /** A job in progress on a runner, keyed by runner so an interruption can count its jobs. */
  runnerJob: (runnerKey: string, jobId: number): Key => ({ pk: `RUNNERJOB#${runnerKey}`, sk: `JOB#${jobId}` }),
  runnerJobs: (runnerKey: string): KeyRange => ({ pk: `RUNNERJOB#${runnerKey}` }),
  /** The units of an installation's retry budget taken in the rolling hour: one item, one writer at a time. */
  budgetWindow: (installationId: number | null): Key => ({ pk: budgetPk(installationId), sk: 'WINDOW' }),
  /** An installation's reserved slots for content-generating requests: one item, one writer at a time. */
  pacing: (installationId: number | null): Key => ({ pk: `PACE#${installationId ?? 'none'}`, sk: 'PACE' }),
  /**
   * How this attempt, a re-run by reprise, ended. Written once, by the intake: in a partition of
   * its own, never the run's, so the intake's grant holds no write on the run-attempt claims.
   */
  rerunOutcome: (repoId: number, runId: number, attempt: number): Key => ({
    pk: `RUNOUTCOME#${repoId}#${runId}`,
    sk: `OUTCOME#${attemptNo(attempt)}`,
  }),
  /** One item per re-run outcome of an installation, sorted by time: the breaker's window is one Query. */
  outcomeAt: (installationId: number | null, atIso: string, attemptKey: string): Key => ({
    pk: outcomesPk(installationId),
    sk: `AT#${atIso}#${attemptKey}`,
  }),
  outcomesSince: (installationId: number | null, sinceIso: string): KeyRange => ({
    pk: outcomesPk(installationId),
    sk: { after: `AT#${sinceIso}` },
  }),
  /** One item per re-run outcome of one repository, sorted by time: its own breaker's window. */
  repoOutcomeAt: (installationId: number | null, repoId: number, atIso: string, attemptKey: string): Key => ({
    pk: `${outcomesPk(installationId)}#REPO#${repoId}`,
    sk: `AT#${atIso}#${attemptKey}`,
  }),
  repoOutcomesSince: (installationId: number | null, repoId: number, sinceIso: string): KeyRange => ({
    pk: `${outcomesPk(installationId)}#REPO#${repoId}`,
    sk: { after: `AT#${sinceIso}` },
  }),
  /** A repository's breaker: until when its own automatic re-runs pause. */
  repoBreaker: (installationId: number | null, repoId: number): Key => ({
    pk: `BREAKER#${installationId ?? 'none'}#REPO#${repoId}`,
    sk: 'BREAKER',
  }),
  /** The installation's breaker: until when its automatic re-runs pause. */
  breaker: (installationId: number | null): Key => ({ pk: `BREAKER#${installationId ?? 'none'}`, sk: 'BREAKER' }),
  /**
   * A job waiting for a runner, from its `queued` event until `in_progress` or `completed`: one
   * partition per installation, so a sweep reads each installation apart and a bounded page of it.
   */
  queuedJob: (installationId: number | null, repoId: number, jobId: number): Key => ({
    pk: queuedPk(installationId),
    sk: `JOB#${repoId}#${jobId}`,
  }),
  /** An installation's waiting jobs after `afterSk` (a job's sort key), or from the first. */
  queuedJobsAfter: (installationId: number | null, afterSk?: string): KeyRange => ({
    pk: queuedPk(installationId),
    sk: { after: afterSk ?? 'JOB#' },
  }),
  /** Beside an installation's waiting jobs: the sort key where its next sweep resumes. */
  queuedCursor: (installationId: number | null): Key => ({ pk: queuedPk(installationId), sk: 'CURSOR' }),
  /** One item per installation with jobs waiting (refreshed by each `queued`): where a sweep starts. */
  queuedInstallation: (installationId: number | null): Key => ({
    pk: 'QUEUEDINST',
    sk: `INST#${installationId ?? 'none'}`,
  }),
  queuedInstallations: (): KeyRange => ({ pk: 'QUEUEDINST' }),
  /** How often a pull request's head was put back in the merge queue: one counter per head. */
  requeueHead: (repoId: number, pullRequest: number, headSha: string): Key => ({
    pk: `REQUEUE#${repoId}#${pullRequest}`,
    sk: `HEAD#${headSha}`,
  }),
  /** One per merge group whose ejection was handled, so its other workflows' runs do not queue it twice. */
  requeueGroup: (repoId: number, pullRequest: number, groupSha: string): Key => ({
    pk: `REQUEUE#${repoId}#${pullRequest}`,
    sk: `GROUP#${groupSha}`,
  }),
  /** The newest run of a workflow on a branch of a repository, as `workflow_run` events reported it. */
  branchRun: (installationId: number | null, repoId: number, workflowId: number, branch: string): Key => ({
    pk: `BRANCHRUN#${installationId ?? 'none'}#${repoId}#${workflowId}`,
    sk: `BRANCH#${branch}`,
  }),
  /**
   * reprise's early end of one run attempt (`force-cancel`): written once, before the call. Under
   * a partition of its own, apart from the run's claims (`RUN#`), which the intake may not write.
   */
  recoveryEnd: (repoId: number, runId: number, attempt: number): Key => ({
    pk: `RECOVERY#${repoId}#${runId}`,
    sk: `END#${attemptNo(attempt)}`,
  }),
  /** A run whose lost job waits for its healthy siblings to end: each sibling's end asks again. */
  recoveryWait: (repoId: number, runId: number): Key => ({ pk: `RECOVERY#${repoId}#${runId}`, sk: 'WAIT' }),
  /** Where a reconciler sweep resumes (a ledger scan key, a deliveries cursor). */
  reconcileCursor: (name: string): Key => ({ pk: `CURSOR#${name}`, sk: 'CURSOR' }),
  /** The local runtime's queue journal (its own table): one item per message. */
  queueMessage: (queue: string, messageId: string): Key => ({ pk: `QUEUE#${queue}`, sk: `MSG#${messageId}` }),
  queueMessages: (queue: string): KeyRange => ({ pk: `QUEUE#${queue}` }),
  /** The operator's pause of a scope (`*`, an owner, a repository): one partition, a handful of items. */
  pause: (scope: string): Key => ({ pk: 'PAUSE', sk: `SCOPE#${scope}` }),
  pauses: (): KeyRange => ({ pk: 'PAUSE' }),
  /** One per delivery GUID the reconciler asked GitHub to redeliver. */
  redelivery: (guid: string): Key => ({ pk: `REDELIVERY#${guid}`, sk: 'REDELIVERY' }),
} as const;

/** The TTL attribute's value: `seconds` from `nowMs`, in epoch seconds as DynamoDB reads it. */
export const ttlFrom = (nowMs: number, seconds: number): number => Math.floor(nowMs / 1000) + seconds;
