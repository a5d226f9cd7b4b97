/**
 * The per-job REST pattern a workflow-based re-runner follows, as the baseline: list the
 * attempt's jobs, read each failed or cancelled job's annotations with one call per job, and
 * re-run the failed jobs when every failure is a lost runner. Written the plain way, with
 * Octokit and pagination, against the same simulator.
 */
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';

const BaselineOctokit = Octokit.plugin(paginateRest);
export type BaselineClient = InstanceType<typeof BaselineOctokit>;

export function baselineClient(baseUrl: string, token: string): BaselineClient {
  return new BaselineOctokit({ baseUrl, auth: token, userAgent: 'per-job-baseline' });
}

/** The runner-loss texts a typical re-runner matches: the loss annotation and the shutdown log line. */
const RUNNER_LOST = [/lost communication with the server/i, /runner has received a shutdown signal/i];

export interface BaselineDecision {
  readonly rerun: boolean;
  readonly lost: number;
  readonly genuine: number;
}

export interface RunRef {
  readonly owner: string;
  readonly repo: string;
  readonly runId: number;
  readonly attempt: number;
}

/** Annotation calls run this many at a time, as a `Promise.all` over small chunks would. */
const CONCURRENCY = 10;

export async function perJobDecision(gh: BaselineClient, run: RunRef): Promise<BaselineDecision> {
  const { owner, repo } = run;
  const jobs = await gh.paginate('GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs', {
    owner,
    repo,
    run_id: run.runId,
    attempt_number: run.attempt,
    per_page: 100,
  });
  const candidates = jobs.filter((j) => j.conclusion === 'failure' || j.conclusion === 'cancelled');
  let lost = 0;
  let genuine = 0;
  for (let i = 0; i < candidates.length; i += CONCURRENCY) {
    await Promise.all(
      candidates.slice(i, i + CONCURRENCY).map(async (job) => {
        const annotations = await gh.paginate('GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', {
          owner,
          repo,
          check_run_id: job.id,
          per_page: 100,
        });
        const isLost = annotations.some(
          (a) => a.annotation_level === 'failure' && RUNNER_LOST.some((re) => re.test(a.message ?? '')),
        );
        if (isLost) lost++;
        else if (job.conclusion === 'failure') genuine++;
      }),
    );
  }
  const rerun = lost > 0 && genuine === 0;
  if (rerun) {
    await gh.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
      owner,
      repo,
      run_id: run.runId,
    });
  }
  return { rerun, lost, genuine };
}
