import type { RepoConfig } from '../config/repo-config.js';
import type { GitHubClients } from '../github/client.js';
import { stuckJobMarkdown, summaryMarkdown } from '../github/report.js';
import type { RepoConfigSource } from '../github/repo-config-source.js';
import { RepoApi } from '../github/repo-api.js';
import { NotFoundError } from '../errors.js';
import type { AttemptReader } from '../ledger/run-attempts.js';
import type { QueuedJobs } from '../ledger/queued-jobs.js';
import type { QueuedJobRecord } from '../records.js';
import type { Pacing } from '../ledger/pacing.js';
import { isRerunDecision } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import type { EventPublisher, StuckQueuedEvent } from '../events/types.js';

/** No repository may ask for less: a sweep never reads a configuration for a job younger than this. */
const MIN_STUCK_AFTER_MS = 60_000;
const DEFAULT_STUCK_AFTER_MINUTES = 15;
/** Jobs of one installation a sweep reads at most: a backlog on a label no runner has waits for a later sweep. */
export const STUCK_JOBS_PER_INSTALLATION = 50;

/** What the stuck-job sweep needs: the queued jobs, GitHub's clients, the settings, the clock and the pace. */
export interface StuckContext {
  readonly queuedJobs: QueuedJobs;
  readonly attempts: AttemptReader;
  readonly client: (installationId: number | null) => GitHubClients;
  readonly graphqlUrl: string;
  readonly configSource: Pick<RepoConfigSource, 'load'>;
  /** The deployment's defaults, `stuck_after` among them. */
  readonly defaults: RepoConfig;
  readonly events?: EventPublisher;
  /** The installation's shared pace: a check run takes a free slot or is skipped. */
  readonly pacing?: Pacing;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now: () => number;
  /** How many jobs of one installation a sweep reads; STUCK_JOBS_PER_INSTALLATION when absent. */
  readonly perInstallation?: number;
}

/** What one stuck-job sweep did: jobs reported, cleared, and left to the next sweep by a fault. */
export interface StuckCounts {
  stuckReported: number;
  stuckCleared: number;
  /** Jobs a fault left for the next sweep. */
  stuckErrors: number;
}

/** The report's words, shared by the log line, the check run and the event. */
function describe(job: QueuedJobRecord, waitedMs: number, stuckAfterMinutes: number, rerun: boolean): string {
  const minutes = Math.floor(waitedMs / 60_000);
  const what = rerun ? 'a re-run by reprise' : 'a job';
  return (
    `job "${job.name}" (${what}, attempt ${job.runAttempt}) has waited ${minutes} min for a runner, ` +
    `longer than stuck_after ${stuckAfterMinutes} min` +
    (job.labels.length > 0 ? ` (runs-on: ${job.labels.join(', ')})` : '')
  );
}

/**
 * Jobs queued longer than their repository's `stuck_after` with no runner picking them up. Each
 * is reported once (a conditional mark): a metric, an alarm on it, a log line, an event, and a
 * check run when the repository asks for `report: check_run`. GitHub is asked for the job's
 * status first, so a missed `in_progress` delivery clears the job instead of reporting it. Each
 * installation gives a bounded share of its jobs per sweep, resuming where its last share ended.
 */
export async function sweepStuck(ctx: StuckContext, counts: StuckCounts): Promise<void> {
  const now = ctx.now();
  const share = await ctx.queuedJobs.sweepShare(ctx.perInstallation ?? STUCK_JOBS_PER_INSTALLATION);
  const waiting = share.filter((j) => j.reportedAt === undefined && now - j.queuedAt >= MIN_STUCK_AFTER_MS);
  // One configuration read per repository and sweep.
  const configs = new Map<string, Promise<RepoConfig>>();
  for (const job of waiting) {
    try {
      await sweepJob(ctx, job, now, configs, counts);
    } catch (err) {
      // The job stays unreported, so a later sweep takes it up again.
      counts.stuckErrors++;
      ctx.log.warn('reconcile: queued job left for the next sweep', {
        repository: job.repository,
        job_id: job.jobId,
        error: (err as Error).message,
      });
    }
  }
}

async function sweepJob(
  ctx: StuckContext,
  job: QueuedJobRecord,
  now: number,
  configs: Map<string, Promise<RepoConfig>>,
  counts: StuckCounts,
): Promise<void> {
  const [owner = '', repo = ''] = job.repository.split('/');
  const api = new RepoApi(ctx.client(job.installationId), owner, repo, ctx.graphqlUrl);
  let cfg = configs.get(job.repository);
  if (!cfg) {
    cfg = ctx.configSource.load(api, owner, repo, ctx.defaults).then((c) => c.config);
    configs.set(job.repository, cfg);
  }
  const config = await cfg.catch((err: unknown) => {
    configs.delete(job.repository);
    throw err;
  });
  // A repository that turned reprise off, or a workflow it does not cover, is not watched.
  if (!config.enabled || (config.workflows && !config.workflows.includes(job.workflowName ?? ''))) return;
  const stuckAfterMinutes = config.stuckAfterMinutes ?? DEFAULT_STUCK_AFTER_MINUTES;
  const waitedMs = now - job.queuedAt;
  if (waitedMs < stuckAfterMinutes * 60_000) return;

  let status: string;
  try {
    status = await api.jobStatus(job.jobId);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    status = 'gone';
  }
  if (status === 'in_progress' || status === 'completed' || status === 'gone') {
    await ctx.queuedJobs.clear(job);
    counts.stuckCleared++;
    return;
  }
  // Waiting for an environment's approval is not waiting for a runner.
  if (status !== 'queued') return;
  if (!(await ctx.queuedJobs.markReported(job))) return;
  counts.stuckReported++;
  await report(ctx, api, config, job, waitedMs, stuckAfterMinutes);
}

/** The job that waits too long, as the operator reads it: the log line and the event share these fields. */
type StuckLine = ReturnType<typeof stuckLine>;

function stuckLine(job: QueuedJobRecord, waitedMs: number, stuckAfterMinutes: number, rerun: boolean, reason: string) {
  return {
    repository: job.repository,
    run_id: job.runId,
    run_attempt: job.runAttempt,
    job_id: job.jobId,
    job_name: job.name,
    labels: job.labels,
    queued_at: new Date(job.queuedAt).toISOString(),
    waited_seconds: Math.floor(waitedMs / 1000),
    stuck_after_minutes: stuckAfterMinutes,
    reprise_rerun: rerun,
    reason,
  };
}

/** The `stuck_queued` event; a publishing fault is logged, never thrown. */
async function publishStuck(ctx: StuckContext, job: QueuedJobRecord, line: StuckLine): Promise<void> {
  const event: StuckQueuedEvent = {
    version: 1,
    kind: 'stuck_queued',
    time: new Date(ctx.now()).toISOString(),
    installation_id: job.installationId,
    repository: job.repository,
    run_id: job.runId,
    run_attempt: job.runAttempt,
    job_id: job.jobId,
    job_name: job.name,
    workflow_name: job.workflowName,
    labels: job.labels,
    queued_at: line.queued_at,
    waited_seconds: line.waited_seconds,
    stuck_after_minutes: line.stuck_after_minutes,
    reprise_rerun: line.reprise_rerun,
    reason: line.reason,
  };
  await ctx.events
    ?.publish(event)
    .catch((e: Error) => ctx.log.warn('could not publish the stuck-queued event', { ...line, error: e.message }));
}

/** A neutral check run on the job's commit, with `report: check_run`, when the pace has a slot free now. */
async function stuckCheckRun(ctx: StuckContext, api: RepoApi, job: QueuedJobRecord, line: StuckLine): Promise<void> {
  if (!job.headSha) return;
  if (!(await reportSlotFree(ctx, job.installationId))) {
    ctx.log.info('check run skipped: re-runs of this installation are waiting for their turn', line);
    ctx.metrics.count('ReportYielded');
    return;
  }
  await api
    .createCheckRun({
      name: 'reprise',
      headSha: job.headSha,
      conclusion: 'neutral',
      title: `reprise: job stuck queued${line.reprise_rerun ? ' (re-run by reprise)' : ''}`,
      summary: summaryMarkdown(line.reason),
      text: stuckJobMarkdown(job, line.reason),
    })
    .catch((e: Error) => ctx.log.warn('could not create the reprise check run', { ...line, error: e.message }));
}

/** Reports one stuck job: counted, logged, published, and a check run where the settings ask for one. */
async function report(
  ctx: StuckContext,
  api: RepoApi,
  config: RepoConfig,
  job: QueuedJobRecord,
  waitedMs: number,
  stuckAfterMinutes: number,
): Promise<void> {
  const prior =
    job.runAttempt > 1
      ? await ctx.attempts.get(job.repoId, job.runId, job.runAttempt - 1).catch(() => undefined)
      : undefined;
  const rerun = isRerunDecision(prior?.decision);
  const reason = describe(job, waitedMs, stuckAfterMinutes, rerun);
  ctx.metrics.count('StuckQueued');
  if (rerun) ctx.metrics.count('StuckQueuedRerun');
  const line = stuckLine(job, waitedMs, stuckAfterMinutes, rerun, reason);
  ctx.log.warn('stuck queued', line);
  await publishStuck(ctx, job, line);
  if (config.report === 'check_run') await stuckCheckRun(ctx, api, job, line);
}

/**
 * A check run is a content-generating request: it takes a slot of the installation's pace only
 * when one is free now (within a slot's spacing), so it never delays a waiting re-run.
 */
async function reportSlotFree(ctx: StuckContext, installationId: number | null): Promise<boolean> {
  if (!ctx.pacing) return true;
  const latest = ctx.now() + Math.min(ctx.pacing.spacingMs, 1_000);
  return (await ctx.pacing.reserve(installationId, latest).catch(() => undefined)) !== undefined;
}
