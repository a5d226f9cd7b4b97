import { writeFileSync } from 'node:fs';
import { backtest as runBacktest, type BacktestResult, noCache } from '../backtest/backtest.js';
import { installationRepositories, type RepoName } from '../backtest/history.js';
import { RequestMeter } from '../backtest/requests.js';
import { summarize } from '../backtest/summary.js';
import { createClientFactory } from '../github/client.js';
import { RepoConfigSource } from '../github/repo-config-source.js';
import { noMetrics } from '../obs/memory-metrics.js';
import type { Log } from '../obs/types.js';
import { describeAwsError } from './aws.js';
import { FileCache } from './backtest-cache.js';
import { backtestHtml } from './backtest-html.js';
import { type BacktestReport, backtestText, progressBar } from './backtest-render.js';
import { appClient, credentialsFrom, describeGitHubError, githubSettings, installationFor } from './github.js';
import {
  CliError,
  type CliIo,
  parseCommand,
  parseCount,
  parseSince,
  printJson,
  println,
  runCommand,
  UsageError,
} from './io.js';
import { tableLedger, tableName, tableSignals } from './ledger-source.js';

const HELP = `reprise backtest: what reprise would have done on your own history, against what people did.

Usage: reprise backtest <owner>[/<repo>] [--since 30d] [--workflow NAME…] [options]

Lists the period's runs (every repository of the App's installation on <owner>, or one),
and judges each failed attempt as the worker would have when it completed: the same
configuration (.github/reprise.yml as of today), classifier and decision, with dry_run
forced on. It reads only: it never re-runs and writes nothing to GitHub. Each failed
attempt is then compared with what happened next:

  agreed_rerun   reprise would re-run it, and people did (the delay reprise saves)
  reprise_only   reprise would re-run it, nobody did (check the evidence)
  people_only    people re-ran it, reprise would not (a missed loss, or a flaky test)
  agreed_leave   neither

Credentials: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), or GITHUB_TOKEN (then name a
repository); GITHUB_API_URL for GitHub Enterprise Server.

Options:
  --since WHEN         the period's start: 30m, 12h, 30d, or an ISO date (default 30d)
  --workflow NAME      only this workflow (its name or file name); repeatable
  --json               print every examined attempt as JSON (run id, attempt, class)
  --html FILE          write one self-contained HTML page of the results
  --max-requests N     send at most N requests to GitHub's API; stop cleanly when spent
  --cache FILE         keep what was read in FILE; a second run reads only the listings again
  --table NAME         exact runner signals from this DynamoDB table
  --stack NAME         the same, with the table from the stack outputs
  -h, --help           this help

Exit codes: 0 done (or stopped by --max-requests, which is said), 1 failure, 2 bad usage.`;

const OPTIONS = {
  since: { type: 'string' },
  workflow: { type: 'string', multiple: true },
  html: { type: 'string' },
  'max-requests': { type: 'string' },
  cache: { type: 'string' },
  table: { type: 'string' },
  stack: { type: 'string' },
} as const;

const SCOPE = /^([A-Za-z0-9_.-]+)(?:\/([A-Za-z0-9_.-]+))?$/;

const quietLog: Log = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function parseScope(positionals: readonly string[]): { owner: string; repo?: string } {
  if (positionals.length !== 1) throw new UsageError('expected <owner> or <owner>/<repo>');
  const m = SCOPE.exec(positionals[0] ?? '');
  if (!m) throw new UsageError(`expected <owner> or <owner>/<repo>, got "${positionals[0]}"`);
  return { owner: m[1]!, ...(m[2] && { repo: m[2] }) };
}

/** The installation on an account, from the App's list of installations. */
async function installationOn(app: ReturnType<typeof appClient>, owner: string): Promise<number> {
  const all = await app.paginate('GET /app/installations', { per_page: 100 });
  const found = all.find((i) => (i.account as { login?: string } | null)?.login?.toLowerCase() === owner.toLowerCase());
  if (found) return found.id;
  const names = all.map((i) => (i.account as { login?: string } | null)?.login).filter(Boolean);
  throw new CliError(
    `the App has no installation on "${owner}" (it is installed on: ${names.join(', ') || 'no account'}); check the name, or install it there`,
  );
}

const isTty = (w: unknown): boolean => (w as { isTTY?: boolean }).isTTY === true;

/** The command line read: what to look at, since when, with which settings and credentials. */
function readRequest(argv: readonly string[], io: CliIo) {
  const { values: v, positionals } = parseCommand('backtest', argv, OPTIONS, true);
  const scope = parseScope(positionals);
  const now = (io.now ?? Date.now)();
  const sinceMs = parseSince(v.since ?? '30d', now);
  if (sinceMs >= now) throw new UsageError(`--since: "${v.since}" is not in the past`);
  const max = v['max-requests'] === undefined ? undefined : parseCount(v['max-requests'], 'max-requests', 1);
  const settings = githubSettings(io, v.json === true);
  const creds = credentialsFrom(io.env, true);
  if (creds.kind === 'token' && !scope.repo) {
    throw new UsageError(
      `with GITHUB_TOKEN, name a repository (${scope.owner}/<repo>); every repository of an account needs App credentials`,
    );
  }
  return { v, scope, now, sinceMs, max, settings, creds };
}
type Request = ReturnType<typeof readRequest>;

/** GitHub reached through the request meter: the installation's clients and the repositories to read. */
async function connect(r: Request, io: CliIo) {
  const meter = new RequestMeter(r.max, io.fetch ?? fetch);
  const metered: CliIo = { ...io, fetch: meter.fetch };
  const app = r.creds.kind === 'app' ? appClient(r.settings.apiUrl, r.creds, metered) : undefined;
  const installationId = r.scope.repo
    ? await installationFor(app, r.scope.owner, r.scope.repo)
    : await installationOn(app!, r.scope.owner);
  const clients = createClientFactory({
    apiUrl: r.settings.apiUrl,
    credentials: r.creds,
    log: quietLog,
    retryBaseMs: 200,
    fetch: meter.fetch,
    // A backtest has nothing more urgent to do: it waits out the installation's primary limit.
    maxInlineWaitSeconds: 3600,
  })(installationId);
  const repositories: RepoName[] = r.scope.repo
    ? [{ owner: r.scope.owner, name: r.scope.repo }]
    : await installationRepositories(clients);
  return { meter, clients, installationId, repositories };
}
type Connection = Awaited<ReturnType<typeof connect>>;

/** What the backtest reads with: the worker's own evaluation, quiet, and the table's signals when named. */
function depsFor(r: Request, c: Connection, io: CliIo, table: string | undefined, cache: FileCache | undefined) {
  const { settings } = r;
  const showProgress = !r.v.json && isTty(io.stderr);
  return {
    clients: c.clients,
    installationId: c.installationId,
    graphqlUrl: settings.graphqlUrl,
    defaults: settings.defaults,
    ...(settings.repositoryAllowList && { repositoryAllowList: settings.repositoryAllowList }),
    configSource: new RepoConfigSource(undefined, undefined, settings.repoCeiling),
    evaluation: {
      ...(table && { signals: tableSignals(tableLedger(io, table), settings) }),
      signalWindow: settings.signalWindow,
      logHosts: settings.logHosts,
      logWindowBytes: settings.logWindowBytes,
      log: quietLog,
      metrics: noMetrics,
    },
    cache: cache ?? noCache,
    refused: () => c.meter.refused,
    headroom: () => c.meter.remaining,
    ...(showProgress && { progress: (done: number, total: number) => io.stderr.write(progressBar(done, total)) }),
  };
}

/** The report of a backtest: its scope and period, the figures, the requests it sent and every attempt. */
function reportOf(r: Request, c: Connection, table: string | undefined, result: BacktestResult): BacktestReport {
  const { scope, sinceMs, now, max } = r;
  return {
    scope: scope.repo ? `${scope.owner}/${scope.repo}` : scope.owner,
    period: { since: new Date(sinceMs).toISOString(), until: new Date(now).toISOString() },
    signals: table ? `read from DynamoDB table ${table}` : 'not consulted (pass --table or --stack)',
    complete: result.complete,
    planned: result.planned,
    done: result.done,
    repositories: result.repositories,
    runsListed: result.runsListed,
    runsExamined: result.runsExamined,
    summary: summarize(result.attempts, sinceMs, now),
    requests: { total: c.meter.total, ...(max !== undefined && { max }), byKind: c.meter.byKind() },
    notes: result.notes,
    attempts: result.attempts,
  };
}

/** `reprise backtest`: judges a period's failed attempts as reprise would have, and prints or writes the report. */
export async function backtest(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'backtest',
    HELP,
    argv,
    io,
    async () => {
      const r = readRequest(argv, io);
      const { v } = r;
      const table = await tableName(io, { table: v.table, stack: v.stack });
      const cache = v.cache ? new FileCache(v.cache) : undefined;
      const c = await connect(r, io);
      const deps = depsFor(r, c, io, table, cache);
      const result = await runBacktest(
        { repositories: c.repositories, sinceMs: r.sinceMs, workflows: v.workflow ?? [] },
        deps,
      ).finally(() => {
        cache?.flush();
        if (deps.progress) io.stderr.write('\n');
      });
      const report = reportOf(r, c, table, result);
      if (v.html) writeFileSync(v.html, backtestHtml(report));
      if (v.json) printJson(io, report);
      else println(io.stdout, backtestText(report));
      if (v.html && !v.json) println(io.stderr, `wrote ${v.html}`);
      return 0;
    },
    (err) => describeGitHubError(err) ?? describeAwsError(err),
  );
}
