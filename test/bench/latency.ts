/**
 * Section 2: latency from a webhook's arrival at the runtime to the simulator receiving the
 * re-run request, for a stream of decisions in one installation and spread over many.
 */
import { Octokit } from '@octokit/core';
import { createClientFactory } from '../../lib/github/client.js';
import { GitHubSimulator } from '../sim/index.js';
import { type Cell, median, ms, type Summary, summarize, table } from './format.js';
import { type Fleet, startFleet } from './fleet.js';
import type { Delivery, Tenant } from './load.js';
import { type Capacity, rerunArrivals } from './meters.js';

export interface StreamResult {
  readonly name: string;
  readonly installations: number;
  readonly decisions: number;
  readonly perSecond: number;
  readonly latency: Summary;
  /** The same figures in simulator round trips (latency / simulator latency). */
  readonly roundTrips: { readonly p50: number; readonly p95: number; readonly p99: number };
  /** DynamoDB capacity per decision, intake and worker as the runtime wires them. */
  readonly dynamoPerDecision: Capacity;
}

export interface LatencyResult {
  readonly latencyMs: number;
  readonly workerConcurrency: number;
  /** Median time of one GET at zero simulator latency: reprise's client, and Octokit without plugins. */
  readonly clientOverheadMs: { readonly reprise: number; readonly plainOctokit: number };
  /** First decision of each installation (token exchange, full config read), before the streams. */
  readonly firstDecision: Summary;
  readonly streams: readonly StreamResult[];
}

function latencies(fleet: Fleet, ds: readonly Delivery[]): number[] {
  const reruns = rerunArrivals(fleet.sim.requests);
  return ds.map((d) => {
    const arrived = fleet.arrivals.get(d.guid);
    const rerun = reruns.get(d.runId);
    const decided = fleet.outcomes.get(d.runId)?.map((o) => o.decision);
    if (arrived === undefined || rerun === undefined || decided?.join() !== 'retried') {
      throw new Error(`run ${d.runId}: expected one re-run, got ${decided?.join() ?? 'no decision'}`);
    }
    return rerun - arrived;
  });
}

async function warmUp(fleet: Fleet, tenants: readonly Tenant[]): Promise<number[]> {
  const ds = await Promise.all(tenants.map((t) => fleet.load.delivery(t)));
  await fleet.load.stream(ds, 50);
  await fleet.settle(
    ds.map((d) => d.runId),
    60_000,
  );
  return latencies(fleet, ds);
}

async function stream(
  fleet: Fleet,
  name: string,
  tenants: readonly Tenant[],
  decisions: number,
  intervalMs: number,
  latencyMs: number,
): Promise<StreamResult> {
  const ds: Delivery[] = [];
  for (let i = 0; i < decisions; i++) ds.push(await fleet.load.delivery(tenants[i % tenants.length]!));
  fleet.sim.resetRequests();
  fleet.meter.reset();
  const answers = await fleet.load.stream(ds, intervalMs);
  const refused = answers.filter((a) => a.status !== 202);
  if (refused.length > 0) throw new Error(`${name}: intake answered ${JSON.stringify(refused[0])}`);
  // One installation's re-runs are spaced by the client's write spacing: allow for it.
  await fleet.settle(
    ds.map((d) => d.runId),
    60_000 + decisions * 1000,
  );
  const latency = summarize(latencies(fleet, ds));
  const used = fleet.meter.snapshot();
  const dynamoPerDecision = {
    readUnits: used.readUnits / decisions,
    writeUnits: used.writeUnits / decisions,
    operations: Object.fromEntries(Object.entries(used.operations).map(([k, v]) => [k, v / decisions])),
  };
  const rt = (v: number) => (latencyMs > 0 ? v / latencyMs : NaN);
  return {
    name,
    installations: tenants.length,
    decisions,
    perSecond: 1000 / intervalMs,
    latency,
    roundTrips: { p50: rt(latency.p50), p95: rt(latency.p95), p99: rt(latency.p99) },
    dynamoPerDecision,
  };
}

/**
 * What the client adds to every request: reprise's Octokit goes through plugin-retry's and
 * plugin-throttling's Bottleneck queues, each of which yields to a timer on the way.
 */
async function clientOverhead(): Promise<{ reprise: number; plainOctokit: number }> {
  const sim = await GitHubSimulator.start();
  try {
    sim.addToken('bench-token');
    const run = sim.addRun({ repo: 'acme/overhead', jobs: [{ name: 'x', conclusion: 'success' }] });
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const clients = {
      reprise: createClientFactory({
        apiUrl: sim.url,
        credentials: { kind: 'token', token: 'bench-token' },
        log: quiet,
      })(1).rest,
      plainOctokit: new Octokit({ baseUrl: sim.url, auth: 'bench-token' }),
    };
    const out = { reprise: 0, plainOctokit: 0 };
    for (const [name, gh] of Object.entries(clients) as [keyof typeof out, typeof clients.plainOctokit][]) {
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = performance.now();
        await gh.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
          owner: 'acme',
          repo: 'overhead',
          run_id: run.id,
        });
        if (i >= 10) times.push(performance.now() - t0);
      }
      out[name] = median(times);
    }
    return out;
  } finally {
    await sim.close();
  }
}

export async function measureLatency(opts: {
  latencyMs: number;
  quick: boolean;
  workerConcurrency: number;
}): Promise<LatencyResult> {
  const fleet = await startFleet({ latencyMs: opts.latencyMs, workerConcurrency: opts.workerConcurrency });
  try {
    const n = opts.quick ? 12 : 200;
    const many = Array.from({ length: opts.quick ? 5 : 20 }, (_, i) => fleet.load.tenant(i + 1));
    const one = [fleet.load.tenant(0)];
    const firstDecision = summarize(await warmUp(fleet, [...one, ...many]));
    const streams = [
      await stream(fleet, `${many.length} installations, round robin`, many, n, 200, opts.latencyMs),
      await stream(fleet, 'one installation', one, n, 200, opts.latencyMs),
    ];
    if (!opts.quick) streams.push(await stream(fleet, 'one installation, slower', one, 100, 500, opts.latencyMs));
    const clientOverheadMs = await clientOverhead();
    return {
      latencyMs: opts.latencyMs,
      workerConcurrency: opts.workerConcurrency,
      clientOverheadMs,
      firstDecision,
      streams,
    };
  } finally {
    await fleet.close();
  }
}

export function printLatency(r: LatencyResult): string {
  const rows: Cell[][] = r.streams.map((s) => [
    s.name,
    s.decisions,
    `${s.perSecond}/s`,
    ms(s.latency.p50),
    ms(s.latency.p95),
    ms(s.latency.p99),
    ms(s.latency.max),
    `${s.roundTrips.p50.toFixed(1)} / ${s.roundTrips.p95.toFixed(1)} / ${s.roundTrips.p99.toFixed(1)}`,
  ]);
  return [
    table(
      `2. Webhook arrival → re-run request (simulator latency ${r.latencyMs} ms, ${r.workerConcurrency} worker loops)`,
      ['stream', 'decisions', 'arrivals', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'p50/p95/p99 round trips'],
      rows,
    ),
    '',
    `First decision of each installation (token exchange, config read in full): p50 ${ms(r.firstDecision.p50)} ms, ` +
      `max ${ms(r.firstDecision.max)} ms over ${r.firstDecision.n}.`,
    'One installation: its POSTs are spaced 350 ms apart (WRITE_SPACING_MS), at most 2.9 re-runs a second; ' +
      'arrivals faster than that queue behind the spacing.',
    `Client time per request at zero latency: reprise's Octokit ${ms(r.clientOverheadMs.reprise)} ms, ` +
      `Octokit without plugins ${ms(r.clientOverheadMs.plainOctokit)} ms (retry and throttling queues).`,
  ].join('\n');
}
