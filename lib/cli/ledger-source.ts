import type { DeploymentSettings } from '../config/env.js';
import { type Ledger, openLedger } from '../ledger/ledger.js';
import type { EksListing } from '../ledger/eks-listings.js';
import type { Pause, PauseRequest, Pauses, PauseScope } from '../ledger/pauses.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { type RunnerSignalLookup, runnerSignalLookup } from '../signals/runner-lookup.js';
import type { DecisionFilter, ReportFacts } from '../records.js';
import { describeAwsError, dynamoClient, requireOutput, stackOutputs } from './aws.js';
import { CliError, type CliIo, UsageError, withProgress } from './io.js';
import { localRequest } from './local-runtime.js';
import { type DecisionRecord, withoutMessage } from '../records.js';

/** Where recorded decisions are read from: the deployed table, or a running local runtime. */
export interface LedgerSource {
  readonly where: string;
  list(filter: DecisionFilter): Promise<DecisionRecord[]>;
  /** Decisions, re-run outcomes and runner signals since a time, for `reprise report`. */
  facts(sinceMs: number): Promise<ReportFacts>;
  /** Each EKS cluster's last pod listing by the EC2 signal, for `reprise status`. */
  eksListings?(): Promise<EksListing[]>;
  /** The operator's pauses (`reprise pause`, `reprise resume`), in force now. */
  readonly pauses: Pick<Pauses, 'list' | 'pause' | 'resume'>;
}

/** Where the ledger is read from: a table, a stack's table, or a running local runtime. */
export interface LedgerOptions {
  readonly table?: string | undefined;
  readonly stack?: string | undefined;
  readonly local?: string | undefined;
  /** The local runtime's data directory, where its admin token is kept. */
  readonly dataDir?: string | undefined;
}

/** The DynamoDB table named by `--table`, or by the stack's `TableName` output. */
export async function tableName(io: CliIo, o: LedgerOptions): Promise<string | undefined> {
  if (o.table) return o.table;
  if (o.stack) return requireOutput(await stackOutputs(io, o.stack), 'TableName', o.stack);
  return undefined;
}

/** The ledger a command reads (decisions, report facts, pauses, EKS listings): a local runtime's or a table; undefined when no flag names one. */
export async function ledgerSource(io: CliIo, o: LedgerOptions): Promise<LedgerSource | undefined> {
  if (o.local && (o.table || o.stack)) throw new CliError('use either --local or --table/--stack, not both');
  if (o.local) {
    const base = o.local.replace(/\/+$/, '');
    const target = { url: base, dataDir: o.dataDir };
    return {
      where: `local runtime ${base}`,
      list: async (f) => {
        const q = new URLSearchParams();
        if (f.repository) q.set('repo', f.repository);
        if (f.sinceMs !== undefined) q.set('since', String(f.sinceMs));
        if (f.limit !== undefined) q.set('limit', String(f.limit));
        const body = (await localRequest(
          io,
          { url: base, dataDir: o.dataDir },
          'GET',
          `/decisions?${q.toString()}`,
        )) as {
          decisions: DecisionRecord[];
        };
        return body.decisions;
      },
      facts: async (sinceMs) =>
        (await localRequest(
          io,
          { url: base, dataDir: o.dataDir },
          'GET',
          `/report-facts?since=${sinceMs}`,
        )) as ReportFacts,
      eksListings: async () =>
        (
          (await localRequest(io, { url: base, dataDir: o.dataDir }, 'GET', '/eks-listings')) as {
            clusters: EksListing[];
          }
        ).clusters,
      pauses: {
        list: async () => ((await localRequest(io, target, 'GET', '/pauses')) as { pauses: Pause[] }).pauses,
        pause: async (r: PauseRequest) =>
          (await localRequest(io, target, 'POST', '/pause', r)) as { pause: Pause; replaced?: Pause },
        resume: async (scope: PauseScope) =>
          ((await localRequest(io, target, 'POST', '/resume', { scope })) as { resumed: Pause | null }).resumed ??
          undefined,
      },
    };
  }
  const table = await tableName(io, o);
  if (!table) return undefined;
  const ledger = tableLedger(io, table);
  return {
    where: `DynamoDB table ${table}`,
    list: async (f) => (await ledger.decisions.list(f)).map(withoutMessage),
    facts: (sinceMs) => ledger.report.facts(sinceMs),
    eksListings: () => ledger.eksListings.list(),
    pauses: ledger.pauses,
  };
}

/**
 * Reads from the source the options name, with progress on stderr; a failed read names the source and
 * the cause. Without a source it is a usage error.
 */
export async function readLedger<T>(
  io: CliIo,
  o: LedgerOptions,
  read: (s: LedgerSource) => Promise<T>,
): Promise<{ readonly value: T; readonly where: string }> {
  const source = await ledgerSource(io, o);
  if (!source) throw new UsageError('pass --stack NAME, --table NAME or --local URL');
  return withProgress(io, `reading ${source.where}`, async () => {
    try {
      return { value: await read(source), where: source.where };
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw new CliError(`cannot read ${source.where}: ${describeAwsError(err) ?? (err as Error).message}`);
    }
  });
}

/** The ledger on `table`, through the command's one DynamoDB client. */
export const tableLedger = (io: CliIo, table: string): Ledger => openLedger(dynamoClient(io), table);

/** The table's runner signals as the worker reads them: its TTL and runner-name keys. */
export const tableSignals = (ledger: Ledger, settings: DeploymentSettings): RunnerSignalLookup =>
  runnerSignalLookup(ledger.runnerSignals(settings.signalTtlSeconds), new RunnerKeys(settings.runnerNamePatterns));
