import { signAppJwt } from './app-key.js';
import { ContentLimit, type ContentLimitOptions, type ContentLimitStats } from './content-limit.js';
import type { Route } from './http.js';
import { SimModel } from './model.js';
import type { SimLease } from './lease.js';
import { workflowJob, workflowRun } from './render-actions.js';
import { actionsRoutes } from './routes-actions.js';
import { appRoutes } from './routes-app.js';
import { checksRoutes } from './routes-checks.js';
import { addMergeGroupRun, type SimMergeGroup, type SimMergeGroupSpec } from './merge-queue.js';
import { graphqlRoutes } from './routes-graphql.js';
import { logRoutes } from './routes-logs.js';
import { repoRoutes } from './routes-repos.js';
import { webRoutes } from './routes-web.js';
import type { SimRun } from './runs.js';
import { SimServer } from './server.js';
import type {
  SimApp,
  SimCheckRun,
  SimDelivery,
  SimEnqueueRequest,
  SimFault,
  SimPullRequest,
  SimRequestRecord,
  SimRerunRecord,
  SimRerunRequest,
  SimHistorySpec,
  SimRunSpec,
} from './types.js';
import { NO_RERUNS, type RerunTally, tallyReruns } from './rerun-requests.js';

export type * from './types.js';
export type { SimMergeGroup, SimMergeGroupSpec } from './merge-queue.js';
export { SimRun } from './runs.js';
export { decodeJwt } from './auth.js';
export { NO_RERUNS, tallyReruns, type RerunTally } from './rerun-requests.js';
export { signAppJwt, simAppPrivateKey } from './app-key.js';
export {
  PRIMARY_MESSAGE,
  RATE_LIMIT_SHAPES,
  SECONDARY_MESSAGE,
  rateLimited,
  type RateLimitShape,
  type RateLimitSignal,
} from './rate-limits.js';

/** Every API route the simulator serves, in match order (the web host's are `webRoutes`). */
export const simRoutes: readonly Route[] = [
  ...actionsRoutes,
  ...logRoutes,
  ...checksRoutes,
  ...graphqlRoutes,
  ...repoRoutes,
  ...appRoutes,
];

/** An App JWT as auth-app makes one: signed with the default App's key, issued a minute ago. */
export function fakeJwt(appId: number | string = 1_234_567, ttlSeconds = 540): string {
  const now = Math.floor(Date.now() / 1000);
  return signAppJwt({ iat: now - 60, exp: now + ttlSeconds, iss: String(appId) });
}

export interface SimStartOptions {
  latencyMs?: number;
  logHost?: string;
  /** Enforce GitHub's secondary limit on re-run and check-run POSTs, per installation. */
  contentLimit?: ContentLimitOptions;
}

/** GitHub REST and GraphQL, served from memory on 127.0.0.1 for tests, the demo and the benchmark. */
export class GitHubSimulator {
  private readonly model = new SimModel();
  private readonly server: SimServer;

  private constructor(opts: SimStartOptions) {
    this.server = new SimServer(this.model, [...simRoutes, ...webRoutes], opts);
    if (opts.contentLimit) this.server.contentLimit = new ContentLimit(opts.contentLimit);
  }

  static async start(opts: SimStartOptions = {}): Promise<GitHubSimulator> {
    const sim = new GitHubSimulator(opts);
    await sim.server.listen();
    return sim;
  }

  /** REST base, without any /api/v3 suffix (which is also accepted, as is /api/graphql). */
  get url(): string {
    return this.server.url;
  }

  get graphqlUrl(): string {
    return `${this.url}/graphql`;
  }

  close(): Promise<void> {
    this.model.lease.close();
    return this.server.close();
  }

  get latencyMs(): number {
    return this.server.latencyMs;
  }

  set latencyMs(ms: number) {
    this.server.latencyMs = ms;
  }

  /** Lets each answer's latency pass on a test's clock instead of the wall clock. */
  set latencyWait(wait: (ms: number) => Promise<void>) {
    this.server.latencyWait = wait;
  }

  addRun(spec: SimRunSpec): SimRun {
    return this.model.addRun(spec);
  }

  /** A finished run with every attempt as it happened (who started it, when, what its jobs concluded). */
  addRunHistory(spec: SimHistorySpec): SimRun {
    return this.model.addRunHistory(spec);
  }

  run(id: number): SimRun {
    return this.model.run(id);
  }

  addInstallation(opts: Parameters<SimModel['addInstallation']>[0]): void {
    this.model.addInstallation(opts);
  }

  setRepoFile(repo: string, path: string, content: string | null): void {
    this.model.setRepoFile(repo, path, content);
  }

  addPullRequest(repo: string, pr: Parameters<SimModel['addPullRequest']>[1]): void {
    this.model.addPullRequest(repo, pr);
  }

  /** A pull request as GitHub holds it now (its head, whether it is in the merge queue). */
  pullRequest(repo: string, number: number): Readonly<SimPullRequest> | undefined {
    return this.model.pull(this.model.repo(repo), number);
  }

  /** A merge group for a pull request and one of its `merge_group` runs; a failed run removes it from the queue. */
  addMergeGroupRun(spec: SimMergeGroupSpec): SimMergeGroup {
    return addMergeGroupRun(this.model, spec);
  }

  /** Every `enqueuePullRequest` received, accepted or refused: what was sent, not what was taken. */
  get enqueueRequests(): readonly SimEnqueueRequest[] {
    return this.model.enqueueRequests;
  }

  addDelivery(d: Parameters<SimModel['addDelivery']>[0]): SimDelivery {
    return this.model.addDelivery(d);
  }

  get deliveries(): readonly SimDelivery[] {
    return this.model.deliveries;
  }

  /** Accepts a token as is (GITHUB_TOKEN / personal token mode); it sees every repository. */
  addToken(token: string): void {
    this.model.staticTokens.add(token);
  }

  /** Issues an installation token without the JWT exchange. */
  issueToken(installationId: number): string {
    const inst = this.model.installations.get(installationId);
    if (!inst) throw new Error(`no installation ${installationId}`);
    return this.model.issueToken(installationId, inst.permissions);
  }

  /** Makes every issued installation token expire now (static tokens stay valid). */
  expireTokens(): void {
    for (const t of this.model.tokens.values()) t.expiresAt = Date.now() - 1;
  }

  get requests(): SimRequestRecord[] {
    return this.server.requests;
  }

  resetRequests(): void {
    this.server.requests.length = 0;
    this.server.peakInFlight = this.server.inFlight;
  }

  /** The most requests answered at once since the last reset. */
  get peakInFlight(): number {
    return this.server.peakInFlight;
  }

  /** Requests made as the App (its JWT): token exchanges and its delivery log, not an installation's limit. */
  get appRequests(): SimRequestRecord[] {
    return this.server.requests.filter((r) => r.as === 'app');
  }

  count(method: string, path: RegExp): number {
    return this.server.requests.filter((r) => r.method === method.toUpperCase() && path.test(r.path)).length;
  }

  injectFault(f: SimFault): void {
    this.server.injectFault(f);
  }

  clearFaults(): void {
    this.server.clearFaults();
  }

  /** Seeds the simulator's ids and the placement of rate faults. */
  setSeed(n: number): void {
    this.model.rng.seed(n);
    this.server.seedFaults(n);
  }

  /** Sets a rate-limit bucket; once `used` reaches `limit` the API answers 403 rate limit exceeded. */
  setRateLimit(resource: 'core' | 'graphql', limit: number, used = 0): void {
    this.server.setRateLimit(resource, limit, used);
  }

  /**
   * GitHub's secondary limit on content creation, applied to re-run POSTs per installation over a
   * rolling window; off unless a test sets it (null turns it off again).
   */
  setSecondaryLimit(opts: ContentLimitOptions | null): void {
    this.server.contentLimit = opts ? new ContentLimit(opts) : null;
  }

  /**
   * Whether job listings answer a matching `If-None-Match` with 304 (on, as GitHub does). Off
   * is a control: every listing answered in full and counted, as if no condition were sent.
   */
  set honoursIfNoneMatch(on: boolean) {
    this.model.honoursIfNoneMatch = on;
  }

  /** What the secondary limit on content-generating requests saw; undefined when it is off. */
  get contentLimit(): ContentLimitStats | undefined {
    return this.server.contentLimit?.stats;
  }

  /**
   * Re-runs GitHub accepted. Not a count of calls: a repeated `rerun-failed-jobs` is refused
   * (403) and never appears here; count calls with `rerunRequests` or `rerunTally`.
   */
  get reruns(): readonly SimRerunRecord[] {
    return this.model.reruns;
  }

  /** Every re-run POST received, with its answer, in order of arrival (`resetRequests` keeps them). */
  get rerunRequests(): readonly SimRerunRequest[] {
    return this.model.rerunRequests;
  }

  /** What GitHub received for one run's re-runs: requests, accepted ones, repeats after acceptance. */
  rerunTally(runId: number): RerunTally {
    return tallyReruns(this.model.rerunRequests).get(runId) ?? NO_RERUNS;
  }

  get checkRuns(): readonly SimCheckRun[] {
    return this.model.checkRuns;
  }

  /** GitHub's answer for cancelled-only runs is unconfirmed; default: cancelled jobs are not "failed". */
  get rerunFailedJobsIncludesCancelled(): boolean {
    return this.model.rerunFailedJobsIncludesCancelled;
  }

  set rerunFailedJobsIncludesCancelled(v: boolean) {
    this.model.rerunFailedJobsIncludesCancelled = v;
  }

  /** Bytes of job log bodies served by the log host. */
  get logBytesServed(): number {
    return this.server.logBytesServed;
  }

  /** GitHub's job lease: dead runners, their jobs' end, cancels, and the callbacks for each end. */
  get lease(): SimLease {
    return this.model.lease;
  }

  /** Every cancel and force-cancel POST received, accepted or not. */
  get cancelRequests(): readonly { kind: 'cancel' | 'force-cancel'; runId: number; status: number; at: number }[] {
    return this.model.cancelRequests;
  }

  /** Called for each new attempt a re-run creates (the attempt is already complete unless a job was left open). */
  set onNewAttempt(fn: ((run: SimRun) => void) | null) {
    this.model.onNewAttempt = fn;
  }

  /** Performs a redelivery; answers the status code the receiver gave. Default: 200 without delivering. */
  set onRedeliver(
    fn: ((d: { guid: string; event: string; action: string | null }) => number | Promise<number>) | null,
  ) {
    this.server.onRedeliver = fn;
  }

  addManifestCode(
    code: string,
    app: { id: number; slug: string; pem: string; webhookSecret: string; htmlUrl?: string },
  ): void {
    this.model.manifestCodes.set(code, {
      id: app.id,
      slug: app.slug,
      name: app.slug,
      owner: this.model.app.owner,
      pem: app.pem,
      webhookSecret: app.webhookSecret,
      clientId: `Iv23li${this.model.rng.alnum(14)}`,
      clientSecret: this.model.rng.hex(40),
      htmlUrl: app.htmlUrl ?? `https://github.com/apps/${app.slug}`,
    });
  }

  /** The App the simulator answers as: the last one created from a manifest, or its default. */
  get app(): Readonly<SimApp> {
    return this.model.app;
  }

  get hookConfig(): { url: string; content_type: string; insecure_ssl: string } {
    return this.model.hookConfig;
  }

  set hookConfig(c: { url: string; content_type: string; insecure_ssl: string }) {
    Object.assign(this.model.hookConfig, c);
  }

  /** The run as REST shows it, which is also the `workflow_run` object of the webhook payload. */
  workflowRunJson(id: number, attempt?: number): ReturnType<typeof workflowRun> {
    return workflowRun(this.url, this.model, this.model.run(id), attempt);
  }

  /** A job as REST shows it (the `workflow_job` object of the webhook payload). */
  workflowJobJson(jobId: number): ReturnType<typeof workflowJob> {
    const found = this.model.jobs.get(jobId);
    if (!found) throw new Error(`no job ${jobId}`);
    return workflowJob(this.url, this.model, found.run, found.job);
  }

  /** The numeric id of a repository (created on first use). */
  repoId(fullName: string): number {
    return this.model.repo(fullName).id;
  }
}
