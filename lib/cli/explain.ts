import type { DeploymentSettings } from '../config/env.js';
import type { Ledger } from '../ledger/ledger.js';
import { describePause } from '../ledger/pauses.js';
import { describeAwsError } from './aws.js';
import { type Explanation, explainRun } from './explain-run.js';
import {
  appClient,
  credentialsFrom,
  describeGitHubError,
  installationFor,
  githubSettings,
  workerClients,
} from './github.js';
import { type CliIo, parseCommand, printJson, println, runCommand, table, withProgress } from './io.js';
import { tableLedger, tableName, tableSignals } from './ledger-source.js';
import { parseRunRef, readLiveRun } from './run-lookup.js';

const HELP = `reprise explain: what reprise decides for a run, and why, without re-running anything.

Usage: reprise explain <owner>/<repo> <run_id> [--attempt N] [options]

Runs the worker's own configuration lookup, staleness check, classifier and decision
against the live run, with dry_run forced on: it never re-runs and writes nothing. Prints
every job of the attempt (conclusion, runner, verdict, evidence source, evidence) and the
decision with its reason.

Credentials: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN; GITHUB_API_URL
for GitHub Enterprise Server. Decision defaults (MAX_ATTEMPTS, EXTRA_PATTERNS, …) are read
from the environment as npm start reads them; .github/reprise.yml applies on top.

Options:
  --attempt N    the attempt to explain (default: the latest)
  --table NAME   read runner signals (exact interruption records), the recorded outcome
                 of each re-run attempt of the run, the installation's breaker and
                 the repository's, and the operator's pause (reprise pause) from this
                 DynamoDB table
  --stack NAME   the same, with the table from the stack outputs
  --dotenv FILE  read settings and credentials from FILE (no other .env is read
                 outside reprise's own checkout)
  --json         print the explanation as JSON
  -h, --help     this help

Exit codes: 0 explained, 1 unknown run or refused credentials (the URL tried is printed), 2 bad usage.`;

const OPTIONS = {
  attempt: { type: 'string' },
  table: { type: 'string' },
  stack: { type: 'string' },
} as const;

/** What explain reads from the table, on one ledger: the runner signals and the breakers' outcomes. */
const fromTable = (ledger: Ledger, name: string, settings: DeploymentSettings) => ({
  signals: tableSignals(ledger, settings),
  signalsFrom: `DynamoDB table ${name}`,
  outcomes: ledger.outcomes(settings.breaker),
});

const dash = (s: string | null): string => (s === null || s === '' ? '—' : s);

/** An explanation, with the operator's pause of the repository read from the table. */
type Explained = Explanation & { readonly pause?: string };

function printExplanation(io: CliIo, x: Explained): void {
  const out = io.stdout;
  println(
    out,
    `${x.repository} run ${x.runId} attempt ${x.attempt} of ${x.latestAttempt}: ${x.status}, ${dash(x.conclusion)}`,
  );
  println(out, x.url);
  println(out);
  if (x.jobs.length > 0) {
    const rows = x.jobs.map((j) => [
      j.name,
      dash(j.conclusion),
      dash(j.runner),
      j.verdict ?? '—',
      dash(j.source),
      dash(j.evidence),
    ]);
    println(out, table(['JOB', 'CONCLUSION', 'RUNNER', 'VERDICT', 'SOURCE', 'EVIDENCE'], rows));
    if (!x.verdictsDecided && x.jobs.some((j) => j.verdict)) {
      println(out, '(the decision was settled before any job was examined; verdicts shown for information)');
    }
    println(out);
  }
  const what = x.wouldRerun ? 'would re-run the failed jobs' : x.decision;
  println(out, `Decision: ${what}`);
  println(out, `Reason:   ${x.wouldRerun ? x.reason.replace(/^would re-run: /, '') : x.reason}`);
  if (x.wouldRerun && x.pause) {
    println(out, `          but re-runs are paused: the worker decides "paused" (${x.pause})`);
  } else if (x.wouldRerun) {
    const call = x.mergeQueue?.startsWith('would put') ? 'sends enqueuePullRequest' : 'calls rerun-failed-jobs';
    println(out, `          (the worker ${call} here; explain never does)`);
  }
  if (x.mergeQueue) println(out, `Merge queue: ${x.mergeQueue}`);
  if (x.recovery) println(out, `Recovery: ${x.recovery}`);
  if (x.staleness) println(out, `Staleness: ${x.staleness}`);
  const origin =
    x.configOrigin === 'defaults' ? 'defaults (no .github/reprise.yml)' : `${x.configOrigin}/.github/reprise.yml`;
  println(out, `Config:   ${origin}${x.configError ? ` (error: ${x.configError}; defaults used)` : ''}`);
  println(out, `Signals:  ${x.signals}`);
  println(out, `GitHub requests: ${x.requests}`);
  if (x.outcomes) {
    for (const o of x.outcomes) println(out, `Outcome:  ${o}`);
    if (x.outcomes.length === 0) println(out, 'Outcome:  no re-run outcome recorded for any attempt of this run');
  }
  // In the order the decision reads them: a pause of the installation's holds every repository.
  if (x.breaker) println(out, `Breaker:  installation: ${x.breaker}`);
  if (x.repositoryBreaker) println(out, `Breaker:  ${x.repository}: ${x.repositoryBreaker}`);
  if (x.pause) println(out, `Paused:   ${x.pause}`);
  for (const n of x.notes) println(out, `Note: ${n}`);
}

/** `reprise explain`: what reprise decides for a run, and why, without re-running anything. */
export async function explain(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'explain',
    HELP,
    argv,
    io,
    async () => {
      const { values: v, positionals } = parseCommand('explain', argv, OPTIONS, true);
      const ref = parseRunRef(positionals, v.attempt);
      const settings = githubSettings(io, v.json === true);
      const creds = credentialsFrom(io.env, true);
      const app = creds.kind === 'app' ? appClient(settings.apiUrl, creds, io) : undefined;
      const table = await tableName(io, { table: v.table, stack: v.stack });

      const ledger = table ? tableLedger(io, table) : undefined;
      const x: Explained = await withProgress(io, `explaining ${ref.owner}/${ref.repo} run ${ref.runId}`, async () => {
        const installationId = await installationFor(app, ref.owner, ref.repo);
        const clients = workerClients(settings, creds)(installationId);
        const live = await readLiveRun(clients, ref, installationId, 'reprise-explain', settings.graphqlUrl);
        const explained = await explainRun(live, {
          clients,
          settings,
          ...(ledger && table && fromTable(ledger, table, settings)),
        });
        const pause = await ledger?.pauses.active(ref.owner, ref.repo);
        return { ...explained, ...(pause && { pause: describePause(pause) }) };
      });
      if (v.json) printJson(io, x);
      else printExplanation(io, x);
      return 0;
    },
    (err) => describeGitHubError(err) ?? describeAwsError(err),
  );
}
