import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeAwsError } from './aws.js';
import {
  CliError,
  parseCommand,
  parseCount,
  parseSince,
  printJson,
  println,
  runCommand,
  UsageError,
  type CliIo,
} from './io.js';
import { describePause } from '../ledger/pauses.js';
import { readLedger } from './ledger-source.js';
import { localUrl } from './local-runtime.js';
import { DEFAULT_PRICE_PER_MINUTE, DEFAULT_TOP, summarise } from './report-data.js';
import { reportHtml, reportText } from './report-render.js';

const HELP = `reprise report: what reprise decided over a period, what its re-runs became, and what
runner losses cost.

Usage: reprise report (--stack NAME | --table NAME | --local [URL]) [--since 7d] [--price-per-minute USD]
                      [--top N] [--json] [--html FILE]

Sources (as for reprise decisions):
  --stack NAME     the deployed table, named by the stack output TableName
  --table NAME     a DynamoDB table (AWS SDK default credentials and region)
  --local [URL]    a running local runtime's admin port (npm start); without URL
                   http://127.0.0.1:ADMIN_PORT (default PORT + 1, i.e. 3001)
  --data-dir DIR   with --local: the runtime's --data-dir, whose admin-token file is read

Options:
  --since WHEN             the period's start: a duration back from now (24h, 7d, 30d) or an ISO date
                           (default 7d)
  --price-per-minute USD   what one runner minute costs, for the estimated cost (default ${DEFAULT_PRICE_PER_MINUTE},
                           GitHub's Linux 2-core rate)
  --top N                  repositories and workflows listed (default ${DEFAULT_TOP})
  --dotenv FILE            read settings and credentials from FILE (no other .env is read
                           outside reprise's own checkout)
  --json                   print the report as JSON
  --html FILE              also write the report as one self-contained HTML page
  -h, --help               this help

Exit codes: 0 reported (even an empty period), 1 the ledger could not be read or FILE not
written, 2 bad usage.`;

const OPTIONS = {
  stack: { type: 'string' },
  table: { type: 'string' },
  local: { type: 'string' },
  'data-dir': { type: 'string' },
  since: { type: 'string' },
  'price-per-minute': { type: 'string' },
  top: { type: 'string' },
  html: { type: 'string' },
} as const;

function parsePrice(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PRICE_PER_MINUTE;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new UsageError(`--price-per-minute: expected a number ≥ 0 (USD per runner minute), got "${value}"`);
  }
  return n;
}

/** `reprise report`: what reprise did over a period, from the ledger, as text, JSON or HTML. */
export async function report(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'report',
    HELP,
    argv,
    io,
    async () => {
      const { values: v } = parseCommand('report', argv, OPTIONS);
      const untilMs = (io.now ?? Date.now)();
      const sinceMs = parseSince(v.since ?? '7d', untilMs);
      if (sinceMs >= untilMs) throw new UsageError(`--since: "${v.since}" is not in the past`);
      const pricePerMinute = parsePrice(v['price-per-minute']);
      const top = parseCount(v.top, 'top', DEFAULT_TOP);
      if (v.html !== undefined && v.html.trim() === '') throw new UsageError('--html: expected a file name');
      const { value: facts, where } = await readLedger(
        io,
        { table: v.table, stack: v.stack, local: localUrl(io.env, v.local), dataDir: v['data-dir'] },
        async (source) => ({ ...(await source.facts(sinceMs)), pauses: await source.pauses.list() }),
      );
      const pausedNow = facts.pauses.map(describePause);
      const r = {
        ...summarise(facts, { sinceMs, untilMs, pricePerMinute, top }),
        ...(pausedNow.length && { pausedNow }),
      };
      if (v.html !== undefined) {
        const file = resolve(v.html);
        try {
          await writeFile(file, reportHtml(r, where));
        } catch (err) {
          throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
        }
        println(io.stderr, `HTML report written to ${file}`);
      }
      if (v.json) printJson(io, r);
      else println(io.stdout, reportText(r, where));
      return 0;
    },
    describeAwsError,
  );
}
