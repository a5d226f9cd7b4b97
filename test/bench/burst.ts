/**
 * Section 3: a fleet-wide reclaim. 1,000 completed runs arrive within one second, spread over
 * many installations, with some deliveries repeated. The local runtime runs in its own process
 * (as `npm start` does) at the deployed worker concurrency, so its sampled memory is its own.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GitHubSimulator, tallyReruns } from '../sim/index.js';
import { runtimeEnv } from './fleet.js';
import { type Cell, ms, table } from './format.js';
import { type Delivery, LoadGenerator } from './load.js';
import { type RequestTally, tally } from './meters.js';
import { TreeSampler, treeRss } from './process-tree.js';
import { spawnRuntime } from './spawn-runtime.js';

export interface BurstResult {
  readonly latencyMs: number;
  readonly workerConcurrency: number;
  readonly runs: number;
  readonly installations: number;
  /** Deliveries sent again: half with the same GUID (a redelivery), half with a new one. */
  readonly repeatedDeliveries: number;
  /** From the first POST to the last decision. */
  readonly drainMs: number;
  readonly decisionsPerSecond: number;
  readonly rssBeforeMb: number;
  readonly peakRssMb: number;
  readonly peakHeapUsedMb: number;
  readonly requests: RequestTally;
  readonly peakGitHubInFlight: number;
  readonly decisions: Readonly<Record<string, number>>;
  /** Re-run POSTs GitHub received, accepted or refused. */
  readonly reruns: number;
  /** Runs asked to re-run again after GitHub had accepted one (the repeat refused or not). */
  readonly runsRerunTwice: number;
  /** Runs with no re-run accepted. */
  readonly runsNotRerun: number;
  readonly duplicatesAbsorbed: { readonly intake: number; readonly queue: number; readonly ledger: number };
  readonly logBytes: number;
  /** The same kind of burst against `npm start` itself, measured from outside. */
  readonly startTree?: StartTreeResult;
}

export interface StartTreeResult {
  readonly runs: number;
  readonly installations: number;
  readonly drainMs: number;
  /** From the spawn of `npm start` to its "listening" log line. */
  readonly startMs: number;
  readonly idleMb: number;
  /** Peak of the RSS summed over every process under `npm start` (npm, sh, node), read from /proc. */
  readonly peakMb: number;
  readonly processes: number;
  /** Each component's own peak RSS (npm, sh, the runtime's node), MB. */
  readonly peakByComponentMb: Readonly<Record<string, number>>;
  /**
   * Every request the burst cost GitHub (token exchanges and 304s included), per run, the App's
   * delivery-log reads left out (its JWT, not the installation's limit: `deliveryLogReadsPerRun`).
   */
  readonly requestsPerRun: number;
  readonly deliveryLogReadsPerRun: number;
}

const mb = (bytes: number) => bytes / (1024 * 1024);
const DELIVERY_LOG = '/app/hook/deliveries';

/**
 * Duplicates and misses counted from every re-run POST GitHub received: a repeated
 * `rerun-failed-jobs` is refused 403 and never shows among the re-runs GitHub accepted.
 */
export function rerunFigures(
  sim: GitHubSimulator,
  runIds: readonly number[],
): { runsRerunTwice: number; runsNotRerun: number } {
  const tallies = tallyReruns(sim.rerunRequests);
  return {
    runsRerunTwice: runIds.filter((id) => (tallies.get(id)?.repeats ?? 0) > 0).length,
    runsNotRerun: runIds.filter((id) => (tallies.get(id)?.accepted ?? 0) === 0).length,
  };
}

export async function measureBurst(opts: {
  latencyMs: number;
  quick: boolean;
  workerConcurrency: number;
}): Promise<BurstResult> {
  const runs = opts.quick ? 50 : 1000;
  const installations = opts.quick ? 10 : 100;
  const repeated = runs / 10;
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs });
  const load = new LoadGenerator(sim);
  const tenants = Array.from({ length: installations }, (_, i) => load.tenant(i));
  const ds: Delivery[] = [];
  for (let i = 0; i < runs; i++) ds.push(await load.delivery(tenants[i % installations]!));
  // Repeats land among the originals: a redelivery keeps the GUID, another event for the run does not.
  const all = [...ds];
  ds.slice(0, repeated).forEach((d, i) => {
    const guid = `${d.guid}-again`;
    const again = i % 2 === 0 ? d : { ...d, guid, headers: { ...d.headers, 'x-github-delivery': guid } };
    all.splice(Math.floor(((i + 1) * all.length) / (repeated + 1)), 0, again);
  });

  const rt = await spawnRuntime(runtimeEnv(sim), opts.workerConcurrency);
  try {
    load.webhookUrl = `${rt.url}/webhook`;
    const before = await rt.stats();
    rt.resetPeak();
    sim.resetRequests();
    const start = Date.now();
    const answers = await load.stream(all, 1000 / all.length);
    const refused = answers.filter((a) => a.status !== 202 && a.status !== 200);
    if (refused.length > 0) throw new Error(`intake answered ${JSON.stringify(refused[0])}`);

    const deadline = Date.now() + 15 * 60_000;
    let stats = await rt.stats();
    const decided = (s: typeof stats) => Object.values(s.decisions).reduce((a, b) => a + b, 0);
    while (decided(stats) < runs || stats.queue.visible + stats.queue.inFlight > 0) {
      if (Date.now() > deadline) throw new Error(`burst did not drain: ${JSON.stringify(stats)}`);
      await new Promise((r) => setTimeout(r, 50));
      stats = await rt.stats();
    }
    const drainMs = stats.lastDecisionAt - start;

    const { runsRerunTwice, runsNotRerun } = rerunFigures(
      sim,
      ds.map((d) => d.runId),
    );
    // The promise under load: every run re-run once, never twice.
    if (runsRerunTwice > 0 || runsNotRerun > 0) {
      throw new Error(`burst: ${runsRerunTwice} runs re-run twice, ${runsNotRerun} not re-run`);
    }
    return {
      latencyMs: opts.latencyMs,
      workerConcurrency: opts.workerConcurrency,
      runs,
      installations,
      repeatedDeliveries: repeated,
      drainMs,
      decisionsPerSecond: runs / (drainMs / 1000),
      rssBeforeMb: mb(before.rss),
      peakRssMb: mb(stats.peakRss),
      peakHeapUsedMb: mb(stats.peakHeapUsed),
      requests: tally(sim.requests),
      peakGitHubInFlight: sim.peakInFlight,
      decisions: stats.decisions,
      reruns: sim.rerunRequests.length,
      runsRerunTwice,
      runsNotRerun,
      duplicatesAbsorbed: {
        intake: answers.filter((a) => a.body.reason === 'duplicate').length,
        queue: stats.queue.duplicatesDropped,
        ledger: stats.decisions.duplicate ?? 0,
      },
      logBytes: rt.logBytes(),
    };
  } finally {
    await rt.close();
    await sim.close();
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /"message":"reprise local runtime listening".*?"url":"(http:\/\/[^"]+)"/;

/**
 * A burst against `npm start` as a user runs it (the compiled runtime, its default worker
 * concurrency), with the RSS of its whole process tree sampled from /proc every 50 ms.
 */
export async function measureStartTree(
  opts: { latencyMs: number; quick: boolean; runs?: number },
  command: readonly string[] = ['npm', 'start', '--silent', '--', '--port', '0'],
): Promise<StartTreeResult> {
  const runs = opts.runs ?? (opts.quick ? 50 : 300);
  const installations = opts.quick ? 10 : 30;
  const sim = await GitHubSimulator.start({ latencyMs: opts.latencyMs });
  const load = new LoadGenerator(sim);
  const tenants = Array.from({ length: installations }, (_, i) => load.tenant(i));
  const ds: Delivery[] = [];
  for (let i = 0; i < runs; i++) ds.push(await load.delivery(tenants[i % installations]!));
  const spawnedAt = Date.now();
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...runtimeEnv(sim),
    },
    // Its own process group, so stopping it stops npm and everything npm started.
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('npm start: not listening within 120 s')), 120_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        out = (out + chunk.toString('utf8')).slice(-65_536);
        const m = LISTENING.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
    });
    const startMs = Date.now() - spawnedAt;
    const idle = treeRss(child.pid as number);
    const sampler = new TreeSampler(child.pid as number);
    load.webhookUrl = `${url}/webhook`;
    sim.resetRequests();
    const start = Date.now();
    const answers = await load.stream(ds, 1000 / ds.length);
    const refused = answers.filter((a) => a.status !== 202 && a.status !== 200);
    if (refused.length > 0) throw new Error(`npm start: intake answered ${JSON.stringify(refused[0])}`);
    const deadline = Date.now() + 15 * 60_000;
    const rerun = () => {
      const t = tallyReruns(sim.rerunRequests);
      return ds.filter((d) => (t.get(d.runId)?.accepted ?? 0) > 0).length;
    };
    while (rerun() < runs) {
      if (Date.now() > deadline) throw new Error(`npm start: ${rerun()} of ${runs} runs re-run after 15 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const drainMs = Date.now() - start;
    const peak = sampler.stop();
    return {
      runs,
      installations,
      drainMs,
      startMs,
      idleMb: mb(idle.bytes),
      peakMb: mb(peak.peakBytes),
      processes: peak.processes,
      peakByComponentMb: Object.fromEntries(Object.entries(peak.byComponent).map(([k, v]) => [k, mb(v)])),
      requestsPerRun: sim.requests.filter((r) => r.path !== DELIVERY_LOG).length / runs,
      deliveryLogReadsPerRun: sim.requests.filter((r) => r.path === DELIVERY_LOG).length / runs,
    };
  } finally {
    if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
    await sim.close();
  }
}

export function printBurst(r: BurstResult): string {
  const d = r.duplicatesAbsorbed;
  const rows: Cell[][] = [
    ['runs (completed within one second)', `${r.runs} over ${r.installations} installations`],
    ['repeated deliveries', `${r.repeatedDeliveries} (half redeliveries with the same GUID)`],
    ['worker concurrency', `${r.workerConcurrency} (the deployed maxConcurrency), batches of up to 10`],
    ['time to drain', `${ms(r.drainMs)} ms`],
    ['decisions per second', r.decisionsPerSecond.toFixed(1)],
    ['peak RSS of the runtime process', `${r.peakRssMb.toFixed(0)} MB (${r.rssBeforeMb.toFixed(0)} MB idle)`],
    ['peak heap used', `${r.peakHeapUsedMb.toFixed(0)} MB`],
    [
      'GitHub requests',
      `${r.requests.counted} counted (${(r.requests.counted / r.runs).toFixed(2)} per run), ` +
        `${r.requests.notModified} 304, ${r.requests.tokenExchanges} token exchanges`,
    ],
    ['peak GitHub requests in flight', r.peakGitHubInFlight],
    ['re-run calls', `${r.reruns} for ${r.runs} runs`],
    ['duplicate re-runs', `${r.runsRerunTwice} (asserted zero); runs not re-run: ${r.runsNotRerun}`],
    ['repeats absorbed by', `intake ${d.intake}, queue dedupe ${d.queue}, ledger claim ${d.ledger}`],
    ['runtime log volume', `${(r.logBytes / 1024).toFixed(0)} KB of JSON lines`],
  ];
  if (r.startTree) {
    const t = r.startTree;
    rows.push(
      [`npm start: listening after`, `${ms(t.startMs)} ms`],
      [`npm start: ${t.runs} runs over ${t.installations} installations`, `drained in ${ms(t.drainMs)} ms`],
      [
        'npm start: peak RSS of its whole process tree',
        `${t.peakMb.toFixed(0)} MB over ${t.processes} processes (${t.idleMb.toFixed(0)} MB idle), /proc`,
      ],
      [
        'npm start: peak RSS per component',
        Object.entries(t.peakByComponentMb)
          .map(([name, peak]) => `${name} ${peak.toFixed(0)} MB`)
          .join(', '),
      ],
      ['npm start: GitHub requests per run', `${t.requestsPerRun.toFixed(2)} (token exchanges and 304s included)`],
      ["npm start: the App's delivery-log reads per run (its JWT)", t.deliveryLogReadsPerRun.toFixed(2)],
    );
  }
  return table(`3. Burst (simulator latency ${r.latencyMs} ms)`, ['measure', 'value'], rows);
}
