/**
 * Section 6: what 10,000 decisions cost on AWS, from the durations, capacity units and request
 * counts measured by sections 1 and 4 and the memory sizes of the synthesized stack, next to
 * the runner minutes a workflow-based re-runner spends for the same 10,000.
 */
import type { Deployment } from './deployment.js';
import { type Cell, table, usd } from './format.js';
import { INTAKE_WITH_LEDGER, type IntakeResult } from './intake.js';
import type { LatencyResult } from './latency.js';
import type { RequestsResult } from './requests.js';

/**
 * List prices, us-east-1, as of 2026-12 (on-demand, first pricing tier, free tiers ignored).
 * Check the providers' pricing pages before relying on them; spot prices move by the hour.
 */
export const PRICES = {
  asOf: '2026-12',
  region: 'us-east-1',
  /** AWS Lambda, arm64: per GB-second and per million requests. */
  lambdaArmGbSecond: 0.0000133334,
  lambdaRequestsPerMillion: 0.2,
  /** Amazon SQS FIFO: per million requests (64 KB chunks). */
  sqsFifoPerMillion: 0.5,
  /** DynamoDB on-demand: per million write / read request units. */
  dynamoWriteUnitsPerMillion: 0.625,
  dynamoReadUnitsPerMillion: 0.125,
  /** API Gateway HTTP API: per million requests (512 KB increments), first 300 million a month. */
  httpApiPerMillion: 1.0,
  /** AWS Secrets Manager: per 10,000 API calls (storage, $0.40 per secret-month, is fixed). */
  secretsManagerPer10k: 0.05,
  /** CloudWatch Logs, standard class: per GB ingested. */
  cloudWatchLogsPerGb: 0.5,
  /** GitHub-hosted standard Linux 2-core runner, per minute (rate from 2026-01-01). */
  githubHostedLinux2CoreMinute: 0.006,
  /** EC2 m7g.large: on-demand list price, and an assumed spot price (about 57 % below it). */
  m7gLargeOnDemandHour: 0.0816,
  m7gLargeSpotHourAssumed: 0.035,
} as const;

export const DECISIONS = 10_000;

export interface CostLine {
  readonly item: string;
  readonly quantity: string;
  readonly usd: number;
}

export interface CostResult {
  readonly prices: typeof PRICES;
  readonly inputs: {
    readonly intakeMs: number;
    readonly workerMs: number;
    readonly intakeMemoryMb: number;
    readonly workerMemoryMb: number;
    readonly latencyMs: number;
    readonly dynamoReadUnits: number;
    readonly dynamoWriteUnits: number;
    /** Where the capacity units come from. */
    readonly dynamoSource: string;
    readonly logBytes: number;
  };
  readonly aws: readonly CostLine[];
  readonly awsTotal: number;
  /** The AWS total if every function ran ten times longer than measured. */
  readonly awsTotalAtTenTimesDuration: number;
  /** 10,000 deliveries the intake filters out (other workflow_run actions, green runs): API Gateway and Lambda. */
  readonly ignoredDeliveries: number;
  readonly runners: readonly CostLine[];
}

const lambda = (invocations: number, memoryMb: number, ms: number) =>
  invocations * (memoryMb / 1024) * (Math.ceil(ms) / 1000) * PRICES.lambdaArmGbSecond;

export function estimateCost(
  requests: RequestsResult,
  intake: IntakeResult,
  deployment: Deployment,
  latency?: LatencyResult,
): CostResult {
  const n = DECISIONS;
  const common = requests.rows.find((r) => r.jobs === 10 && r.lost === 1) ?? requests.rows[0]!;
  const ledger = intake.variants.find((v) => v.name === INTAKE_WITH_LEDGER) ?? intake.variants[0]!;
  const intakeMemoryMb = deployment.functions.Intake?.memoryMb ?? 256;
  const workerMemoryMb = deployment.functions.Worker?.memoryMb ?? 512;
  const runtime = latency?.streams[0]?.dynamoPerDecision;
  const inputs = {
    intakeMs: ledger.perRequest.mean,
    workerMs: common.reprise.durationMs,
    intakeMemoryMb,
    workerMemoryMb,
    latencyMs: requests.latencyMs,
    // The runtime wires intake and worker as the deployment does (retry budget included); the
    // harness of section 1 decides without a budget, so it is only the fallback.
    ...(runtime
      ? {
          dynamoReadUnits: runtime.readUnits,
          dynamoWriteUnits: runtime.writeUnits,
          dynamoSource: 'section 2, the runtime',
        }
      : {
          dynamoReadUnits: (ledger.dynamo?.readUnits ?? 0) + common.reprise.dynamo.readUnits,
          dynamoWriteUnits: (ledger.dynamo?.writeUnits ?? 0) + common.reprise.dynamo.writeUnits,
          dynamoSource: 'sections 1 and 4',
        }),
    logBytes: ledger.logBytesPerRequest + common.reprise.logBytes,
  };
  const lines = (scale: number): CostLine[] => [
    {
      item: `Lambda intake (${intakeMemoryMb} MB arm64)`,
      quantity: `${n.toLocaleString('en')} × ${Math.ceil(inputs.intakeMs * scale)} ms`,
      usd: lambda(n, intakeMemoryMb, inputs.intakeMs * scale),
    },
    {
      item: `Lambda worker (${workerMemoryMb} MB arm64)`,
      quantity: `${n.toLocaleString('en')} × ${Math.ceil(inputs.workerMs * scale)} ms`,
      usd: lambda(n, workerMemoryMb, inputs.workerMs * scale),
    },
    {
      item: 'Lambda requests',
      quantity: `${(2 * n).toLocaleString('en')} invocations (worker batches of 1, the worst case)`,
      usd: ((2 * n) / 1e6) * PRICES.lambdaRequestsPerMillion,
    },
    {
      item: 'SQS FIFO',
      quantity: `${(3 * n).toLocaleString('en')} requests (send, receive, delete per decision)`,
      usd: ((3 * n) / 1e6) * PRICES.sqsFifoPerMillion,
    },
    {
      item: 'DynamoDB on-demand',
      quantity: `${Math.round(n * inputs.dynamoWriteUnits).toLocaleString('en')} WRU + ${Math.round(n * inputs.dynamoReadUnits).toLocaleString('en')} RRU`,
      usd:
        ((n * inputs.dynamoWriteUnits) / 1e6) * PRICES.dynamoWriteUnitsPerMillion +
        ((n * inputs.dynamoReadUnits) / 1e6) * PRICES.dynamoReadUnitsPerMillion,
    },
    {
      item: 'API Gateway HTTP API',
      quantity: `${n.toLocaleString('en')} requests (${(intake.payloadBytes / 1024).toFixed(0)} KB each, < 512 KB)`,
      usd: (n / 1e6) * PRICES.httpApiPerMillion,
    },
    {
      item: 'Secrets Manager',
      quantity: `≤ ${(2 * n).toLocaleString('en')} GetSecretValue (upper bound: every invocation cold)`,
      usd: ((2 * n) / 10_000) * PRICES.secretsManagerPer10k,
    },
    {
      item: 'CloudWatch Logs',
      quantity: `${((n * inputs.logBytes) / 1e6).toFixed(1)} MB of structured log lines`,
      usd: ((n * inputs.logBytes) / 1e9) * PRICES.cloudWatchLogsPerGb,
    },
  ];
  const aws = lines(1);
  const total = (ls: readonly CostLine[]) => ls.reduce((s, l) => s + l.usd, 0);
  const runners: CostLine[] = [
    {
      item: 'GitHub-hosted Linux 2-core',
      quantity: `${n.toLocaleString('en')} runner minutes`,
      usd: n * PRICES.githubHostedLinux2CoreMinute,
    },
    {
      item: 'self-hosted m7g.large, spot (assumed price)',
      quantity: `${n.toLocaleString('en')} instance minutes`,
      usd: (n * PRICES.m7gLargeSpotHourAssumed) / 60,
    },
    {
      item: 'self-hosted m7g.large, on-demand',
      quantity: `${n.toLocaleString('en')} instance minutes`,
      usd: (n * PRICES.m7gLargeOnDemandHour) / 60,
    },
  ];
  return {
    prices: PRICES,
    inputs,
    aws,
    awsTotal: total(aws),
    awsTotalAtTenTimesDuration: total(lines(10)),
    ignoredDeliveries:
      (n / 1e6) * PRICES.httpApiPerMillion + (n / 1e6) * PRICES.lambdaRequestsPerMillion + lambda(n, intakeMemoryMb, 1),
    runners,
  };
}

export function printCost(c: CostResult): string {
  const rows: Cell[][] = [
    ...c.aws.map((l) => [l.item, l.quantity, usd(l.usd)]),
    ['AWS total', '', usd(c.awsTotal)],
    ['', '', ''],
    ...c.runners.map((l) => [`workflow re-runner: ${l.item}`, l.quantity, usd(l.usd)]),
  ];
  const i = c.inputs;
  return [
    table(
      `6. Cost per ${DECISIONS.toLocaleString('en')} decisions (list prices, ${c.prices.region}, as of ${c.prices.asOf})`,
      ['item', 'quantity', 'cost'],
      rows,
    ),
    '',
    `Inputs: intake ${i.intakeMs.toFixed(2)} ms (section 4, dynalite), worker ${i.workerMs.toFixed(0)} ms at ` +
      `${i.latencyMs} ms per GitHub round trip (section 1, 10 jobs with 1 lost), ` +
      `${i.dynamoWriteUnits.toFixed(2)} WRU + ${i.dynamoReadUnits.toFixed(2)} RRU (${i.dynamoSource}) and ` +
      `${(i.logBytes / 1024).toFixed(1)} KB of logs per decision.`,
    `At ten times the measured durations the AWS total is ${usd(c.awsTotalAtTenTimesDuration)}. ` +
      `Deliveries the intake filters out (other actions, green runs) cost ${usd(c.ignoredDeliveries)} per 10,000.`,
  ].join('\n');
}
