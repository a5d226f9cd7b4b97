/**
 * Section 4: the intake handler in-process: verify + parse + dedupe + enqueue per request, as
 * API Gateway invokes it (`httpLambda(createIntake(...))`), with the real Ledger on dynalite and
 * with an in-memory registry, both enqueueing to the embedded FIFO queue.
 */
import { sign } from '@octokit/webhooks-methods';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { httpLambda } from '../../lib/http/lambda-http.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import type { Deliveries } from '../../lib/ledger/deliveries.js';
import { GitHubSimulator } from '../sim/index.js';
import { webhookEvent, workflowRunPayload } from '../support/webhooks.js';
import { type Cell, ms, type Summary, summarize, table } from './format.js';
import { type Capacity, CapacityMeter, CountingLog } from './meters.js';
import { matrixJobs } from './scenarios.js';

const SECRET = 'bench-intake-secret';
/** The variant the goal measures: the dedupe lookup is a Set, so the time is the intake's own. */
export const INTAKE_OWN = 'in-memory registry';
export const INTAKE_WITH_LEDGER = 'Ledger on dynalite';
const TABLE = 'reprise-bench';

export interface IntakeVariant {
  readonly name: string;
  readonly requests: number;
  readonly perRequest: Summary;
  readonly perSecond: number;
  /** Bytes of structured log lines per request, as JSON. */
  readonly logBytesPerRequest: number;
  /** DynamoDB capacity per request (the Ledger variant only). */
  readonly dynamo?: Capacity;
}

export interface IntakeResult {
  readonly payloadBytes: number;
  readonly warmup: number;
  readonly variants: readonly IntakeVariant[];
  /** The Ledger's two calls per request (isSeen, markSeen) on dynalite, without the intake around them. */
  readonly dynaliteAlone: Summary;
}

/** A real `workflow_run` delivery's payload, taken from the simulator once. */
async function deliveryPayload(): Promise<{ workflow_run: { id: number } }> {
  const sim = await GitHubSimulator.start();
  try {
    sim.addInstallation({ id: 4242, account: 'acme' });
    const run = sim.addRun({ repo: 'acme/platform', jobs: matrixJobs(10, 1) });
    return workflowRunPayload(sim, run.id, 4242) as { workflow_run: { id: number } };
  } finally {
    await sim.close();
  }
}

/**
 * Signed API Gateway events for distinct runs, made one at a time just before each request
 * (untimed). Building all 10,000 up front would keep about 270 MB of bodies on the heap, and
 * the garbage collector's passes over it would be timed as the intake's.
 */
type EventSource = (i: number) => Promise<APIGatewayProxyEventV2>;

function eventSource(payload: { workflow_run: { id: number } }, from: number): EventSource {
  const firstRun = payload.workflow_run.id;
  return async (i) => {
    const body = JSON.stringify({ ...payload, workflow_run: { ...payload.workflow_run, id: firstRun + from + i } });
    const headers = {
      'content-type': 'application/json',
      'x-github-event': 'workflow_run',
      'x-github-delivery': `intake-bench-${from + i}`,
      'x-hub-signature-256': await sign(SECRET, body),
      'user-agent': 'GitHub-Hookshot/bench',
    };
    return webhookEvent(
      headers,
      { body: Buffer.from(body).toString('base64'), isBase64Encoded: true },
      `r-${from + i}`,
    );
  };
}

class MemoryRegistry implements Deliveries {
  private readonly seen = new Set<string>();
  async isSeen(guid: string): Promise<boolean> {
    return this.seen.has(guid);
  }
  async markSeen(guid: string): Promise<void> {
    this.seen.add(guid);
  }
}

async function run(
  name: string,
  deliveries: Deliveries,
  events: EventSource,
  counts: { warmup: number; timed: number },
  meter?: CapacityMeter,
): Promise<IntakeVariant> {
  const queue = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo' });
  const log = new CountingLog();
  const handler = httpLambda(
    createIntake({
      secrets: async () => [SECRET],
      deliveries,
      queue: embeddedRunQueue(queue),
      log,
      metrics: new MemoryMetrics(),
    }),
  );
  const check = (res: Awaited<ReturnType<typeof handler>>): void => {
    if (typeof res === 'string' || res.statusCode !== 202) {
      throw new Error(`${name}: intake answered ${JSON.stringify(res)}`);
    }
  };
  for (let i = 0; i < counts.warmup; i++) check(await handler(await events(i)));
  meter?.reset();
  const logBytesBefore = log.bytes;
  const times: number[] = [];
  let busy = 0;
  for (let i = counts.warmup; i < counts.warmup + counts.timed; i++) {
    const e = await events(i);
    const t0 = performance.now();
    const res = await handler(e);
    const took = performance.now() - t0;
    times.push(took);
    busy += took;
    check(res);
  }
  if (queue.stats().sent !== counts.warmup + counts.timed) throw new Error(`${name}: not every request was enqueued`);
  const capacity = meter?.snapshot();
  return {
    name,
    requests: counts.timed,
    perRequest: summarize(times),
    perSecond: counts.timed / (busy / 1000),
    logBytesPerRequest: (log.bytes - logBytesBefore) / counts.timed,
    ...(capacity && {
      dynamo: {
        readUnits: capacity.readUnits / counts.timed,
        writeUnits: capacity.writeUnits / counts.timed,
        operations: Object.fromEntries(Object.entries(capacity.operations).map(([k, v]) => [k, v / counts.timed])),
      },
    }),
  };
}

async function dynaliteAlone(n: number, warmup: number): Promise<Summary> {
  const dynamo = await startDynamo({ table: TABLE });
  try {
    const ledger = openLedger(dynamo.client, TABLE);
    const times: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const t0 = performance.now();
      await ledger.deliveries.isSeen(`alone-${i}`);
      await ledger.deliveries.markSeen(`alone-${i}`, 'workflow_run');
      if (i >= warmup) times.push(performance.now() - t0);
    }
    return summarize(times);
  } finally {
    await dynamo.close();
  }
}

export async function measureIntake(opts: { quick: boolean }): Promise<IntakeResult> {
  const n = opts.quick ? 1000 : 10_000;
  const warmup = opts.quick ? 100 : 500;
  const payload = await deliveryPayload();
  const payloadBytes = Buffer.byteLength(JSON.stringify(payload));
  const counts = { warmup, timed: n };

  const dynamo = await startDynamo({ table: TABLE });
  let ledger: IntakeVariant;
  try {
    const meter = new CapacityMeter(dynamo.client);
    ledger = await run(
      INTAKE_WITH_LEDGER,
      openLedger(dynamo.client, TABLE).deliveries,
      eventSource(payload, 0),
      counts,
      meter,
    );
  } finally {
    await dynamo.close();
  }
  const memory = await run(INTAKE_OWN, new MemoryRegistry(), eventSource(payload, warmup + n), counts);
  return { payloadBytes, warmup, variants: [ledger, memory], dynaliteAlone: await dynaliteAlone(n, warmup) };
}

export function printIntake(r: IntakeResult): string {
  const rows: Cell[][] = r.variants.map((v) => [
    v.name,
    v.requests,
    ms(v.perRequest.p50),
    ms(v.perRequest.p95),
    ms(v.perRequest.p99),
    ms(v.perRequest.max),
    Math.round(v.perSecond),
  ]);
  const d = r.dynaliteAlone;
  rows.push(['(dynalite GetItem + PutItem alone)', d.n, ms(d.p50), ms(d.p95), ms(d.p99), ms(d.max), '-']);
  return [
    table(
      '4. Intake in-process: verify + parse + dedupe + enqueue, one request at a time',
      ['registry', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'req/s'],
      rows,
    ),
    '',
    `Payload: a real workflow_run delivery of ${(r.payloadBytes / 1024).toFixed(1)} KB; ${r.warmup} warm-up requests ` +
      'not timed. The Ledger variant makes a GetItem and a PutItem on dynalite (HTTP on loopback) per request.',
  ].join('\n');
}
