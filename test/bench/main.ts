/**
 * `npm run bench`: GitHub cost, latency, burst throughput, intake speed, cold start and cost per
 * decision, measured against the GitHub simulator on this machine. Prints a table per section
 * and writes bench/results.json and the requests chart.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { measureBurst, measureStartTree, printBurst } from './burst.js';
import { requestsChart } from './chart.js';
import { measureColdStart, printColdStart } from './cold-start.js';
import { estimateCost, printCost } from './cost.js';
import { type Deployment, readDeployment } from './deployment.js';
import { table } from './format.js';
import { evaluateGoals, type Measured } from './goals.js';
import { INTAKE_OWN, measureIntake, printIntake } from './intake.js';
import { measureLatency, printLatency } from './latency.js';
import { HELP, parseOptions } from './options.js';
import { measureRequests, printRequests } from './requests.js';
import { measureWave, printWave } from './wave.js';
import { measureRecovery, printRecovery } from './recovery.js';
import { medianRun } from './repeat.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = new URL('../../', import.meta.url).pathname;

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts === 'help') {
    console.log(HELP);
    return;
  }
  const runs = (n: number) => !opts.only || opts.only.has(n);
  const measuredAt = new Date().toISOString();
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    /** 1-minute load average at the start: above the core count, other work shared the machine. */
    loadAverageAtStart: Number(loadavg()[0]!.toFixed(2)),
  };
  console.log(
    `reprise benchmark ${measuredAt}: ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}; ` +
      `simulator latency ${opts.latencyMs} ms${opts.quick ? ', quick' : ''}`,
  );
  const started = performance.now();
  const timed = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await fn();
    console.log(`(${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    return out;
  };

  const m: { -readonly [K in keyof Measured]: Measured[K] } = {};
  let deployment: Deployment | undefined;
  if (runs(2) || runs(3) || runs(6)) deployment = readDeployment();
  const concurrency = deployment?.workerMaxConcurrency ?? 5;

  if (runs(1) || runs(6)) {
    m.requests = await timed('section 1', () => measureRequests(opts));
    console.log(printRequests(m.requests));
  }
  const repeats: Record<string, readonly number[]> = {};
  /** A timed section, run `--repeat` times; the median run (by `key`) is printed and judged. */
  const repeated = async <T>(n: number, measure: () => Promise<T>, key: (r: T) => number): Promise<T> => {
    const r = await medianRun(opts.repeat, () => timed(`section ${n}`, measure), key);
    repeats[n] = r.keys;
    if (opts.repeat > 1)
      console.log(`(section ${n}: median of ${opts.repeat} runs: ${r.keys.map((k) => k.toFixed(1)).join(', ')})`);
    return r.median;
  };
  if (runs(2)) {
    m.latency = await repeated(
      2,
      () => measureLatency({ ...opts, workerConcurrency: concurrency }),
      (r) => r.streams[0]!.latency.p50,
    );
    console.log(printLatency(m.latency));
  }
  if (runs(3)) {
    m.burst = await repeated(
      3,
      async () => ({
        ...(await measureBurst({ ...opts, workerConcurrency: concurrency })),
        startTree: await measureStartTree(opts),
      }),
      (r) => r.startTree?.peakMb ?? r.peakRssMb,
    );
    console.log(printBurst(m.burst));
  }
  if (runs(4) || runs(6)) {
    m.intake = await repeated(
      4,
      () => measureIntake(opts),
      (r) => r.variants.find((v) => v.name === INTAKE_OWN)?.perRequest.p99 ?? Number.NaN,
    );
    console.log(printIntake(m.intake));
  }
  if (runs(5)) {
    m.coldStart = await timed('section 5', () => measureColdStart(opts));
    console.log(printColdStart(m.coldStart));
  }
  if (runs(7)) {
    m.wave = await repeated(
      7,
      () => measureWave(opts),
      (r) => r.drainMs,
    );
    console.log(printWave(m.wave));
  }
  if (runs(8)) {
    m.recovery = await timed('section 8', () => measureRecovery(opts));
    console.log(printRecovery(m.recovery));
  }
  const cost =
    runs(6) && m.requests && m.intake && deployment
      ? estimateCost(m.requests, m.intake, deployment, m.latency)
      : undefined;
  if (cost) console.log(printCost(cost));

  m.repeats = repeats;
  const goals = evaluateGoals(m);
  console.log(
    table(
      'Goals',
      ['goal', 'measured', 'result'],
      goals.map((g) => [g.goal, g.measured, g.met === null ? 'n/a' : g.met ? 'met' : 'MISSED']),
    ),
  );

  const benchDir = join(ROOT, 'bench');
  mkdirSync(benchDir, { recursive: true });
  const loadAverageAtEnd = Number(loadavg()[0]!.toFixed(2));
  if (Math.max(machine.loadAverageAtStart, loadAverageAtEnd) > machine.cpus) {
    console.log(
      `\nNote: load average ${machine.loadAverageAtStart} → ${loadAverageAtEnd} on ${machine.cpus} cores: other work shared the machine; timings are pessimistic.`,
    );
  }
  const results = {
    measuredAt,
    machine: { ...machine, loadAverageAtEnd },
    options: { ...opts, only: opts.only && [...opts.only] },
    deployment,
    ...m,
    cost,
    goals,
  };
  writeFileSync(join(benchDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const written = [join('bench', 'results.json')];
  if (m.requests) {
    // A quick run leaves the documented chart alone.
    const chart = opts.quick ? join('bench', 'performance-requests.svg') : join('docs', 'performance-requests.svg');
    writeFileSync(join(ROOT, chart), requestsChart(m.requests, measuredAt.slice(0, 10)));
    written.push(chart);
  }
  console.log(`\nWrote ${written.join(', ')} in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
