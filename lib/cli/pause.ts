import { hostname, userInfo } from 'node:os';
import { describePause, EVERYTHING, parsePauseScope, type Pause, type PauseScope } from '../ledger/pauses.js';
import type { DecisionRecord } from '../records.js';
import { describeAwsError } from './aws.js';
import { type CliIo, parseCommand, printJson, println, runCommand, UsageError } from './io.js';
import { type LedgerSource, readLedger } from './ledger-source.js';
import { localUrl } from './local-runtime.js';

const SOURCES = `Where the pause is kept (the deployment's DynamoDB table, read by every decision):
  --stack NAME     the deployed table, named by the stack output TableName
  --table NAME     a DynamoDB table (AWS SDK default credentials and region)
  --local [URL]    a running local runtime's admin port (npm start); without URL
                   http://127.0.0.1:ADMIN_PORT (default PORT + 1, i.e. 3001)
  --data-dir DIR   with --local: the runtime's --data-dir (its admin-token file; default .reprise)
  --dotenv FILE    read settings from FILE (no other .env is read outside reprise's own checkout)
  --json           print the outcome as JSON
  -h, --help       this help`;

const PAUSE_HELP = `reprise pause: stop every re-run now, no redeploy.

Usage: reprise pause [OWNER[/REPO]] --reason TEXT [--for DURATION] (--stack NAME | --table NAME | --local [URL])

Without OWNER, everything is paused; with OWNER, that account's repositories; with
OWNER/REPO, that repository alone. From the next decision on, a run that would be re-run
is decided "paused" instead: nothing is sent to GitHub, and the run is kept so that
"reprise replay OWNER/REPO#RUN_ID" sends it again once resumed ("reprise resume" lists
them). Genuine failures and everything else are decided as usual. Who paused, why and until
when show in "reprise status", "reprise explain", "reprise report" and each paused
decision's reason and event. A second pause of the same scope replaces the first.

Options:
  --reason TEXT    why (required): shown wherever the pause is
  --for DURATION   end the pause by itself after 30m, 2h, 1d, …; without it, it lasts until
                   "reprise resume"
${SOURCES}

Exit codes: 0 paused, 1 the ledger could not be written, 2 bad usage.`;

const RESUME_HELP = `reprise resume: lift a pause (reprise pause), effective on the next decision.

Usage: reprise resume [OWNER[/REPO]] (--stack NAME | --table NAME | --local [URL])

The scope is the one the pause was given (none: the pause of everything). Prints the runs
decided "paused" while it held, each with the "reprise replay" command that sends it again.

${SOURCES}

Exit codes: 0 resumed, or no such pause was in force (said so), 1 the ledger could not be written, 2 bad usage.`;

const OPTIONS = {
  stack: { type: 'string' },
  table: { type: 'string' },
  local: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

/** `30m`, `2h`, `1d`, `45s` as milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+)\s*([smhd])$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's'] : 0;
  if (!(ms > 0)) throw new UsageError(`--for: expected a duration above 0 (30m, 2h, 1d), got "${value}"`);
  return ms;
}

function scopeOf(positionals: readonly string[]): PauseScope {
  if (positionals.length > 1) throw new UsageError('expected at most one OWNER or OWNER/REPO');
  try {
    return parsePauseScope(positionals[0]);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Who pauses: the operator's login on this machine. */
const operator = (): string => {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `unknown@${hostname()}`;
  }
};

const sourceOptions = (io: CliIo, v: { stack?: string; table?: string; local?: string; 'data-dir'?: string }) => ({
  table: v.table,
  stack: v.stack,
  local: localUrl(io.env, v.local),
  dataDir: v['data-dir'],
});

/** `reprise pause`: stops re-runs now, everywhere, for one account or one repository, until resumed or for a while. */
export async function pause(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'pause',
    PAUSE_HELP,
    argv,
    io,
    async () => {
      const { values: v, positionals } = parseCommand(
        'pause',
        argv,
        { ...OPTIONS, reason: { type: 'string' }, for: { type: 'string' } },
        true,
      );
      const scope = scopeOf(positionals);
      const reason = v.reason?.trim();
      if (!reason) throw new UsageError('--reason TEXT is required: it is shown wherever the pause is');
      const forMs = v.for === undefined ? undefined : parseDuration(v.for);
      const { value: done, where } = await readLedger(io, sourceOptions(io, v), (s) =>
        s.pauses.pause({ scope, by: operator(), reason, ...(forMs !== undefined && { forMs }) }),
      );
      if (v.json) {
        printJson(io, { ...done, where });
        return 0;
      }
      println(io.stdout, `Paused in ${where}: ${describePause(done.pause)}`);
      if (done.replaced) println(io.stdout, `(replaces: ${describePause(done.replaced)})`);
      println(io.stdout, 'Runs that would be re-run are decided "paused" from the next decision on.');
      return 0;
    },
    describeAwsError,
  );
}

/** The runs decided paused under `scope` since `sinceMs`: what the pause held back. */
async function heldBack(s: LedgerSource, scope: PauseScope, sinceMs: number): Promise<DecisionRecord[]> {
  const inScope = (repository: string): boolean => {
    const r = repository.toLowerCase();
    return scope === EVERYTHING || r === scope || r.startsWith(`${scope}/`);
  };
  const list = await s.list({ sinceMs, limit: 1000 });
  return list.filter((d) => d.decision === 'paused' && inScope(d.repository));
}

/** `reprise resume`: lifts a pause set by `reprise pause`. */
export async function resume(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'resume',
    RESUME_HELP,
    argv,
    io,
    async () => {
      const { values: v, positionals } = parseCommand('resume', argv, OPTIONS, true);
      const scope = scopeOf(positionals);
      const { value, where } = await readLedger(io, sourceOptions(io, v), async (s) => {
        const resumed: Pause | undefined = await s.pauses.resume(scope);
        const held = resumed ? await heldBack(s, scope, Date.parse(resumed.since)) : [];
        const still = await s.pauses.list();
        return { resumed, held, still };
      });
      const replays = value.held.map((d) => `${d.repository}#${d.runId}@${d.runAttempt}`);
      if (v.json) {
        printJson(io, { resumed: value.resumed ?? null, paused_runs: replays, still_paused: value.still, where });
        return 0;
      }
      const what = scope === EVERYTHING ? 'everything' : scope;
      if (!value.resumed) println(io.stdout, `No pause of ${what} was in force in ${where}.`);
      else println(io.stdout, `Resumed in ${where}: ${describePause(value.resumed)}`);
      for (const p of value.still) println(io.stdout, `Still paused: ${describePause(p)}`);
      if (replays.length > 0) {
        println(io.stdout, `${replays.length} run(s) were decided paused; send each again with:`);
        const flags =
          v.local !== undefined
            ? ` --local ${localUrl(io.env, v.local)}${v['data-dir'] ? ` --data-dir ${v['data-dir']}` : ''}`
            : v.stack
              ? ` --stack ${v.stack}`
              : ` --table ${v.table} --queue-url URL`;
        for (const r of replays) println(io.stdout, `  reprise replay ${r}${flags}`);
      }
      return 0;
    },
    describeAwsError,
  );
}
