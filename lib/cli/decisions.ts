import { describeAwsError } from './aws.js';
import {
  isoTime,
  parseCommand,
  parseCount,
  parseSince,
  printJson,
  println,
  runCommand,
  table,
  UsageError,
  type CliIo,
} from './io.js';
import { readLedger } from './ledger-source.js';
import { localUrl } from './local-runtime.js';

const HELP = `reprise decisions: list the decisions recorded in the ledger, newest first.

Usage: reprise decisions (--stack NAME | --table NAME | --local [URL]) [--repo OWNER/NAME] [--since 2h|ISO] [--limit N]

Sources:
  --stack NAME     the deployed table, named by the stack output TableName
  --table NAME     a DynamoDB table (AWS SDK default credentials and region)
  --local [URL]    a running local runtime's admin port (npm start); without URL
                   http://127.0.0.1:ADMIN_PORT (default PORT + 1, i.e. 3001)
  --data-dir DIR   with --local: the runtime's --data-dir, whose admin-token file is read
                   (default .reprise; REPRISE_ADMIN_TOKEN overrides)

Filters:
  --repo OWNER/NAME  one repository
  --since WHEN       decided since: a duration (30m, 2h, 7d) or an ISO date
  --limit N          at most N decisions (default 20)

  --dotenv FILE    read settings and credentials from FILE (no other .env is read
                   outside reprise's own checkout)
  --json           print the records as JSON
  -h, --help       this help

Exit codes: 0 listed (even none), 1 the ledger could not be read, 2 bad usage.`;

const OPTIONS = {
  stack: { type: 'string' },
  table: { type: 'string' },
  local: { type: 'string' },
  'data-dir': { type: 'string' },
  repo: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
} as const;

/** `reprise decisions`: the last decisions recorded in the ledger, newest first. */
export async function decisions(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'decisions',
    HELP,
    argv,
    io,
    async () => {
      const { values: v } = parseCommand('decisions', argv, OPTIONS);
      if (v.repo !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(v.repo)) {
        throw new UsageError(`--repo: expected owner/name, got "${v.repo}"`);
      }
      const filter = {
        ...(v.repo && { repository: v.repo }),
        ...(v.since && { sinceMs: parseSince(v.since) }),
        limit: parseCount(v.limit, 'limit', 20),
      };
      const { value: list, where } = await readLedger(
        io,
        { table: v.table, stack: v.stack, local: localUrl(io.env, v.local), dataDir: v['data-dir'] },
        (source) => source.list(filter),
      );
      if (v.json) {
        printJson(io, list);
        return 0;
      }
      if (list.length === 0) {
        println(io.stdout, `No decisions in ${where} match.`);
        return 0;
      }
      const rows = list.map((d) => [
        isoTime(d.decidedAt),
        d.repository,
        String(d.runId),
        String(d.runAttempt),
        d.decision ?? '—',
        d.reason ?? '',
      ]);
      println(io.stdout, table(['DECIDED', 'REPOSITORY', 'RUN', 'ATTEMPT', 'DECISION', 'REASON'], rows, 100));
      return 0;
    },
    describeAwsError,
  );
}
