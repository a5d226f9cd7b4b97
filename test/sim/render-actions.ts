import { nodeId } from './ids.js';
import type { SimModel } from './model.js';
import { HTML, actionsApp, githubApp, octocat, repository, user } from './render-repo.js';
import type { SimRun } from './runs.js';
import type { SimActor, SimAnnotationSpec, SimCheckRun, SimJob } from './types.js';

const LEVELS: Record<SimAnnotationSpec['level'], string> = {
  failure: 'FAILURE',
  warning: 'WARNING',
  notice: 'NOTICE',
};

function prRef(api: string, model: SimModel, run: SimRun, number: number) {
  const repo = model.repo(run.repo);
  const pr = model.pull(repo, number);
  const repoRef = { id: repo.id, url: `${api}/repos/${repo.fullName}`, name: repo.name };
  return {
    id: pr?.id ?? number,
    number,
    url: `${api}/repos/${repo.fullName}/pulls/${number}`,
    head: { ref: pr?.headRef ?? run.headBranch ?? '', sha: pr?.headSha ?? run.headSha, repo: repoRef },
    base: { ref: pr?.baseRef ?? repo.defaultBranch, sha: '0'.repeat(40), repo: repoRef },
  };
}

/** A person or a bot as GitHub shows the actor of a run; octocat when none is named. */
function actorOf(api: string, model: SimModel, a: SimActor | undefined) {
  return a ? user(api, a.login, model.ownerId(a.login), a.type) : octocat(api);
}

/** A workflow run as of one attempt (default: the latest), as REST and the webhook payload show it. */
export function workflowRun(api: string, model: SimModel, run: SimRun, n = run.runAttempt) {
  const attempt = run.attempt(n) ?? run.latest;
  const repo = model.repo(run.repo);
  const repoUrl = `${api}/repos/${repo.fullName}`;
  const url = `${repoUrl}/actions/runs/${run.id}`;
  const message = `Change on ${run.headBranch ?? 'a detached head'}`;
  const author = { name: 'Octo Cat', email: 'octocat@example.com' };
  return {
    id: run.id,
    name: run.workflowName,
    node_id: run.nodeId,
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.workflowPath,
    display_title: message,
    run_number: run.runNumber,
    event: run.event,
    status: attempt.status,
    conclusion: attempt.conclusion,
    workflow_id: run.workflowId,
    check_suite_id: run.checkSuiteId,
    check_suite_node_id: nodeId('CS', repo.id, run.checkSuiteId),
    url,
    html_url: `${HTML}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: run.pullRequests.map((p) => prRef(api, model, run, p)),
    created_at: run.createdAt,
    updated_at: attempt.updatedAt,
    // The run's actor started attempt 1; each attempt's triggering actor is who started that one.
    actor: actorOf(api, model, run.attempts[0]?.actor),
    run_attempt: attempt.number,
    referenced_workflows: [],
    run_started_at: attempt.startedAt,
    triggering_actor: actorOf(api, model, attempt.actor),
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${repoUrl}/check-suites/${run.checkSuiteId}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: attempt.number > 1 ? `${url}/attempts/${attempt.number - 1}` : null,
    workflow_url: `${repoUrl}/actions/workflows/${run.workflowId}`,
    head_commit: {
      id: run.headSha,
      tree_id: run.headSha.split('').reverse().join(''),
      message,
      timestamp: run.createdAt,
      author,
      committer: author,
    },
    repository: repository(api, repo),
    head_repository: repository(api, repo),
    head_repository_id: repo.id,
  };
}

function steps(job: SimJob) {
  if (job.status === 'queued' || job.conclusion === 'skipped') return [];
  const done = job.completedAt;
  const step = (number: number, name: string, conclusion: string | null) => ({
    name,
    status: conclusion === null ? 'in_progress' : 'completed',
    conclusion,
    number,
    started_at: job.startedAt,
    completed_at: conclusion === null ? null : (done ?? job.startedAt),
  });
  if (job.status === 'in_progress') return [step(1, 'Set up job', 'success'), step(2, 'Run make test', null)];
  const last = job.conclusion === 'success' ? 'success' : 'skipped';
  return [step(1, 'Set up job', 'success'), step(2, 'Run make test', job.conclusion), step(3, 'Complete job', last)];
}

export function workflowJob(api: string, model: SimModel, run: SimRun, job: SimJob) {
  const repoUrl = `${api}/repos/${run.repo}`;
  return {
    id: job.id,
    run_id: run.id,
    workflow_name: run.workflowName,
    head_branch: run.headBranch,
    run_url: `${repoUrl}/actions/runs/${run.id}`,
    run_attempt: job.runAttempt,
    node_id: job.nodeId,
    head_sha: run.headSha,
    url: `${repoUrl}/actions/jobs/${job.id}`,
    html_url: `${HTML}/${run.repo}/actions/runs/${run.id}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.createdAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    name: job.name,
    steps: steps(job),
    check_run_url: `${repoUrl}/check-runs/${job.id}`,
    labels: job.labels,
    runner_id: job.runnerName ? model.runnerId(job.runnerName) : null,
    runner_name: job.runnerName,
    runner_group_id: job.runnerGroup === null ? null : model.runnerGroupId(job.runnerGroup),
    runner_group_name: job.runnerGroup,
  };
}

export function restAnnotation(run: SimRun, a: SimAnnotationSpec) {
  return {
    path: '.github',
    blob_href: `${HTML}/${run.repo}/blob/${run.headSha}/.github`,
    start_line: 1,
    end_line: 1,
    start_column: null,
    end_column: null,
    annotation_level: a.level,
    title: a.title ?? '',
    message: a.message,
    raw_details: '',
  };
}

export function graphqlAnnotation(a: SimAnnotationSpec) {
  return {
    annotationLevel: LEVELS[a.level],
    title: a.title ?? '',
    message: a.message,
    path: '.github',
    location: { start: { line: 1, column: null }, end: { line: 1, column: null } },
  };
}

/** A job seen through the Checks API. */
export function jobCheckRun(api: string, run: SimRun, job: SimJob) {
  const repoUrl = `${api}/repos/${run.repo}`;
  const html = `${HTML}/${run.repo}/actions/runs/${run.id}/job/${job.id}`;
  return {
    id: job.id,
    head_sha: run.headSha,
    node_id: job.nodeId,
    external_id: null,
    url: `${repoUrl}/check-runs/${job.id}`,
    html_url: html,
    details_url: html,
    status: job.status,
    conclusion: job.conclusion,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    output: {
      title: null,
      summary: null,
      text: null,
      annotations_count: Array.isArray(job.annotations) ? job.annotations.length : 0,
      annotations_url: `${repoUrl}/check-runs/${job.id}/annotations`,
    },
    name: job.name,
    check_suite: { id: run.checkSuiteId },
    app: actionsApp(api),
    pull_requests: [],
  };
}

/** A check run an app created through the Checks API. */
export function createdCheckRun(api: string, model: SimModel, c: SimCheckRun) {
  const repoUrl = `${api}/repos/${c.repo}`;
  return {
    id: c.id,
    head_sha: c.headSha,
    node_id: c.nodeId,
    external_id: c.externalId,
    url: `${repoUrl}/check-runs/${c.id}`,
    html_url: `${HTML}/${c.repo}/runs/${c.id}`,
    details_url: c.detailsUrl,
    status: c.status,
    conclusion: c.conclusion,
    started_at: c.startedAt,
    completed_at: c.completedAt,
    output: { ...c.output, annotations_count: 0, annotations_url: `${repoUrl}/check-runs/${c.id}/annotations` },
    name: c.name,
    check_suite: { id: c.checkSuiteId },
    app: githubApp(api, model.app, model.ownerId(model.app.owner)),
    pull_requests: [],
  };
}
