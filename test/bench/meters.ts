/** What the benchmark counts: GitHub requests by kind, DynamoDB capacity, log volume. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Log } from '../../lib/obs/types.js';
import type { SimRequestRecord } from '../sim/index.js';

export interface RequestTally {
  /** Requests GitHub counts against the installation's rate limits (REST and GraphQL, 304s excluded). */
  readonly counted: number;
  readonly rest: number;
  readonly graphql: number;
  /** Conditional requests answered 304 Not Modified: GitHub does not count them. */
  readonly notModified: number;
  /** `POST /app/installations/{id}/access_tokens`, made with the App's JWT (once an hour per installation). */
  readonly tokenExchanges: number;
  /** `GET /app/hook/deliveries`, the App's read of its delivery log beside a branch run's job listing (its JWT, not the installation's limit). */
  readonly deliveryLogReads: number;
  /** Job log downloads from the signed log host (not the API). */
  readonly logDownloads: number;
  readonly rerunCalls: number;
  /** `GET …/actions/runs/{id}`: the run read that its latest jobs stand in for on the common path. */
  readonly runReads: number;
}

const TOKEN = /^\/app\/installations\/\d+\/access_tokens$/;
const RUN_READ = /^\/repos\/[^/]+\/[^/]+\/actions\/runs\/\d+$/;
const RERUN = /\/actions\/(runs\/\d+\/(rerun|rerun-failed-jobs)|jobs\/\d+\/rerun)$/;

export function tally(records: readonly SimRequestRecord[]): RequestTally {
  let rest = 0;
  let graphql = 0;
  let notModified = 0;
  let tokenExchanges = 0;
  let deliveryLogReads = 0;
  let logDownloads = 0;
  let rerunCalls = 0;
  let runReads = 0;
  for (const r of records) {
    if (r.path.startsWith('/_logs/')) logDownloads++;
    else if (r.method === 'POST' && TOKEN.test(r.path)) tokenExchanges++;
    else if (r.path === '/app/hook/deliveries') deliveryLogReads++;
    else if (r.status === 304) notModified++;
    else if (r.path === '/graphql') graphql++;
    else rest++;
    if (r.method === 'POST' && RERUN.test(r.path)) rerunCalls++;
    if (r.method === 'GET' && RUN_READ.test(r.path)) runReads++;
  }
  return {
    counted: rest + graphql,
    rest,
    graphql,
    notModified,
    tokenExchanges,
    deliveryLogReads,
    logDownloads,
    rerunCalls,
    runReads,
  };
}

/** Run id → time the simulator received its first `rerun-failed-jobs` request. */
export function rerunArrivals(records: readonly SimRequestRecord[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of records) {
    const m = r.method === 'POST' ? /\/actions\/runs\/(\d+)\/rerun-failed-jobs$/.exec(r.path) : null;
    if (m && !out.has(Number(m[1]))) out.set(Number(m[1]), r.at);
  }
  return out;
}

export interface Capacity {
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly operations: Readonly<Record<string, number>>;
}

/**
 * Asks DynamoDB (dynalite) for the capacity each call consumes, by adding `ReturnConsumedCapacity`
 * to every request of a client: the figures the on-demand bill is made of.
 */
export class CapacityMeter {
  private read = 0;
  private write = 0;
  private ops: Record<string, number> = {};

  constructor(client: DynamoDBClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
        const out = await next(args);
        const name = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        const input = args.input as { ConsistentRead?: boolean };
        const units = (out.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits;
        this.ops[name] = (this.ops[name] ?? 0) + 1;
        // DynamoDB bills a read that finds nothing as one 4 KB unit (half when eventually consistent);
        // dynalite reports 0 for an empty Query.
        if (/^(Get|Query|Scan)/.test(name)) this.read += Math.max(units ?? 0, input.ConsistentRead ? 1 : 0.5);
        else this.write += units ?? 0;
        return out;
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
  }

  reset(): void {
    this.read = 0;
    this.write = 0;
    this.ops = {};
  }

  snapshot(): Capacity {
    return { readUnits: this.read, writeUnits: this.write, operations: { ...this.ops } };
  }
}

/**
 * A log that keeps nothing but counts, and the bytes the lines would take as JSON (what CloudWatch
 * Logs ingests); warnings and errors are kept, a few, for the report.
 */
export class CountingLog implements Log {
  lines = 0;
  bytes = 0;
  readonly problems: string[] = [];

  private add(level: string, message: string, extra?: Record<string, unknown>): void {
    this.lines++;
    this.bytes += JSON.stringify({ level, message, ...extra }).length + 1;
    if ((level === 'warn' || level === 'error') && this.problems.length < 20) {
      this.problems.push(`${level}: ${message} ${JSON.stringify(extra ?? {})}`);
    }
  }

  debug(): void {}
  info(message: string, extra?: Record<string, unknown>): void {
    this.add('info', message, extra);
  }
  warn(message: string, extra?: Record<string, unknown>): void {
    this.add('warn', message, extra);
  }
  error(message: string, extra?: Record<string, unknown>): void {
    this.add('error', message, extra);
  }
}
