/**
 * Section 1: GitHub requests per decision, reprise's batched path (the real worker, through
 * the test harness) against the per-job REST pattern, on the same scenarios in the same run.
 */
import type { RunOutcome } from '../../lib/worker/result.js';
import { INSTALLATION_ID, startHarness, type Harness } from '../support/harness.js';
import { baselineClient, perJobDecision } from './baseline.js';
import { type Cell, median, ms, table } from './format.js';
import { type Capacity, CapacityMeter, type RequestTally, tally } from './meters.js';
import { matrixJobs, type Scenario, scenarios } from './scenarios.js';

const OWNER = 'acme';
const REPO = 'platform';
const BASELINE_REPO = 'platform-baseline';
/** A repository file, so the steady state shows the config read as a free 304. */
const CONFIG = 'max_attempts: 3\n';

export interface RepriseDecision {
  readonly decision: string;
  readonly requests: RequestTally;
  readonly durationMs: number;
  readonly dynamo: Capacity;
  /** Bytes of the structured log lines of the decision, as JSON. */
  readonly logBytes: number;
}

export interface RequestRow {
  readonly jobs: number;
  readonly lost: number;
  readonly levels: readonly string[];
  readonly reprise: RepriseDecision;
  readonly baseline: { readonly requests: RequestTally; readonly durationMs: number; readonly rerun: boolean };
  /** Per-job requests over reprise's, both as GitHub counts them. */
  readonly ratio: number;
}

export interface RequestsResult {
  readonly latencyMs: number;
  readonly repeats: number;
  /** The first decision of an installation in the hour: token exchange and a full config read. */
  readonly firstDecision: RepriseDecision;
  readonly rows: readonly RequestRow[];
  /** A `pull_request` run of 10 jobs with 1 lost: the staleness check's cost. */
  readonly pullRequest: RepriseDecision;
}

interface Bench {
  readonly h: Harness;
  readonly meter: CapacityMeter;
  readonly worker: ReturnType<Harness['worker']>;
  readonly outcomes: Map<number, RunOutcome>;
}

async function decideWithReprise(b: Bench, runId: number): Promise<RepriseDecision> {
  const event = b.h.sqsEvent([b.h.message(runId)]);
  b.h.sim.resetRequests();
  b.h.log.clear();
  b.meter.reset();
  const t0 = performance.now();
  const res = await b.worker(event);
  const durationMs = performance.now() - t0;
  if (res.batchItemFailures.length > 0) {
    throw new Error(`reprise failed run ${runId}: ${JSON.stringify(b.h.log.lines.filter((l) => l.level !== 'info'))}`);
  }
  const outcome = b.outcomes.get(runId);
  if (!outcome) throw new Error(`reprise recorded no outcome for run ${runId}`);
  const logBytes = b.h.log.lines.reduce((n, l) => n + JSON.stringify(l).length + 1, 0);
  return {
    decision: outcome.decision,
    requests: tally(b.h.sim.requests),
    durationMs,
    dynamo: b.meter.snapshot(),
    logBytes,
  };
}

const sameCounts = (a: RequestTally, b: RequestTally) => JSON.stringify(a) === JSON.stringify(b);

export async function measureRequests(opts: { latencyMs: number; quick: boolean }): Promise<RequestsResult> {
  const h = await startHarness();
  try {
    h.sim.setRepoFile(`${OWNER}/${REPO}`, '.github/reprise.yml', CONFIG);
    const outcomes = new Map<number, RunOutcome>();
    const b: Bench = {
      h,
      meter: new CapacityMeter(h.dynamo.client),
      // One worker for the whole section, so its configuration cache lives as it does in a warm Lambda.
      worker: h.worker({ onOutcome: (m, o) => outcomes.set(m.runId, o) }),
      outcomes,
    };
    h.sim.latencyMs = opts.latencyMs;
    const baseline = baselineClient(h.sim.url, h.sim.issueToken(INSTALLATION_ID));
    const repeats = opts.quick ? 1 : 3;

    const first = h.sim.addRun({ repo: `${OWNER}/${REPO}`, jobs: matrixJobs(10, 1, 0) });
    const firstDecision = await decideWithReprise(b, first.id);

    const rows: RequestRow[] = [];
    for (const s of scenarios()) rows.push(await measureScenario(b, baseline, s, repeats));

    const sha = 'c0ffee'.padEnd(40, '0');
    h.sim.addPullRequest(`${OWNER}/${REPO}`, { number: 7, state: 'open', headSha: sha, headRef: 'feature' });
    const pr = h.sim.addRun({
      repo: `${OWNER}/${REPO}`,
      event: 'pull_request',
      headSha: sha,
      headBranch: 'feature',
      pullRequests: [7],
      jobs: matrixJobs(10, 1, 7),
    });
    const pullRequest = await decideWithReprise(b, pr.id);
    for (const d of [firstDecision, pullRequest]) {
      if (d.decision !== 'retried') throw new Error(`expected a re-run, reprise decided ${d.decision}`);
    }
    return { latencyMs: opts.latencyMs, repeats, firstDecision, rows, pullRequest };
  } finally {
    await h.close();
  }
}

async function measureScenario(
  b: Bench,
  baseline: ReturnType<typeof baselineClient>,
  s: Scenario,
  repeats: number,
): Promise<RequestRow> {
  const { sim } = b.h;
  const reprise: RepriseDecision[] = [];
  const base: { requests: RequestTally; durationMs: number; rerun: boolean }[] = [];
  for (let i = 0; i < repeats; i++) {
    const jobs = matrixJobs(s.jobs, s.lost, s.jobs * 1000 + i);
    const ours = sim.addRun({ repo: `${OWNER}/${REPO}`, jobs });
    const theirs = sim.addRun({ repo: `${OWNER}/${BASELINE_REPO}`, jobs });

    const d = await decideWithReprise(b, ours.id);
    if (d.decision !== 'retried') throw new Error(`${s.jobs} jobs, ${s.lost} lost: reprise decided ${d.decision}`);
    reprise.push(d);

    sim.resetRequests();
    const t0 = performance.now();
    const decision = await perJobDecision(baseline, {
      owner: OWNER,
      repo: BASELINE_REPO,
      runId: theirs.id,
      attempt: 1,
    });
    base.push({ requests: tally(sim.requests), durationMs: performance.now() - t0, rerun: decision.rerun });
    if (!decision.rerun || sim.run(theirs.id).runAttempt !== 2) {
      throw new Error(`${s.jobs} jobs, ${s.lost} lost: the per-job pattern did not re-run`);
    }
  }
  for (const list of [reprise, base]) {
    if (!list.every((x) => sameCounts(x.requests, list[0]!.requests))) {
      throw new Error(`${s.jobs} jobs, ${s.lost} lost: request counts differ between repeats`);
    }
  }
  const r = reprise[0]!;
  const p = base[0]!;
  return {
    jobs: s.jobs,
    lost: s.lost,
    levels: s.levels,
    reprise: { ...r, durationMs: median(reprise.map((x) => x.durationMs)) },
    baseline: { ...p, durationMs: median(base.map((x) => x.durationMs)) },
    ratio: p.requests.counted / r.requests.counted,
  };
}

const breakdown = (t: RequestTally) => `${t.rest} REST + ${t.graphql} GraphQL`;

export function printRequests(r: RequestsResult): string {
  const rows: Cell[][] = r.rows.map((row) => [
    row.jobs,
    `${row.lost} (${row.levels.join(', ')})`,
    row.reprise.requests.counted,
    breakdown(row.reprise.requests),
    row.reprise.requests.notModified,
    row.baseline.requests.counted,
    `${row.ratio.toFixed(1)}×`,
    ms(row.reprise.durationMs),
    ms(row.baseline.durationMs),
  ]);
  const first = r.firstDecision.requests;
  const pr = r.pullRequest.requests;
  return [
    table(
      `1. GitHub requests per decision (simulator latency ${r.latencyMs} ms; median of ${r.repeats} for times)`,
      ['jobs', 'lost', 'reprise', 'reprise breakdown', '304 (free)', 'per-job', 'ratio', 'reprise ms', 'per-job ms'],
      rows,
    ),
    '',
    'Counted = requests GitHub counts against the installation (REST + GraphQL, 304 excluded).',
    `Config: .github/reprise.yml is read with its ETag on every decision: a 304, which GitHub does not count.`,
    `First decision of an installation in the hour: ${first.counted} counted (config read in full), ` +
      `${first.tokenExchanges} token exchange(s) (App JWT, once an hour per installation; not counted above); ` +
      `${first.deliveryLogReads} read(s) of the App's delivery log (App JWT, a branch run's check that no newer run's delivery was lost; not counted above).`,
    `pull_request run (10 jobs, 1 lost): ${pr.counted} counted (${breakdown(pr)}): the staleness check lists ` +
      'newer runs and reads the pull request.',
  ].join('\n');
}
