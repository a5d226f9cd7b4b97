import { describeAwsError, stackOutputs } from './aws.js';
import { appClient, credentialsFrom, describeGitHubError, githubSettings, workerClients } from './github.js';
import {
  CliError,
  type CliIo,
  parseCommand,
  parseCount,
  printJson,
  println,
  runCommand,
  UsageError,
  withProgress,
} from './io.js';
import { ledgerSource } from './ledger-source.js';
import { localUrl } from './local-runtime.js';
import { checkLastSignal, checkPauses } from './status-ledger.js';
import {
  type AppFacts,
  type Check,
  checkDecisions,
  checkDeliveries,
  checkEksListings,
  checkInstallations,
  checkMergeQueuePermissions,
  checkRateLimit,
  checkWebhook,
  listInstallations,
} from './status-checks.js';

const HELP = `reprise status: check that the GitHub App and the deployment work together.

Usage: reprise status [--stack NAME | --webhook-url URL] [--table NAME | --local [URL]] [options]

Needs the App's credentials in the environment: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH),
and GITHUB_API_URL for GitHub Enterprise Server. Checks, each OK or what is wrong and the fix:
  webhook URL     the App's webhook URL (GET /app/hook/config) is the deployed one
  installations   where the App is installed, on which repositories, with the permissions the
                  settings need (checks: write with REPORT=check_run or --report check_run)
  merge queue     whether each installation grants what merge_queue: requeue needs
  deliveries      webhook deliveries of the last 24 h that failed and were not redelivered
  rate limit      requests left this hour, through an installation token
  decisions       the last decisions recorded in the ledger
  pause           whether re-runs are paused (reprise pause): where, by whom, why, until when
  last signal     the newest runner signal recorded in the last 7 days (a spot drill shows here)
  EKS pods        whether the EC2 signal could list the runner pods on each EKS cluster

Options:
  --stack NAME       read the webhook URL and the table from the stack outputs
  --webhook-url URL  the expected webhook URL
  --table NAME       the DynamoDB table (AWS SDK default credentials)
  --local [URL]      a running local runtime's admin port (npm start); without URL
                     http://127.0.0.1:ADMIN_PORT (default PORT + 1, i.e. 3001)
  --data-dir DIR     with --local: the runtime's --data-dir (its admin-token file)
  --decisions N      how many recent decisions to show (default 5)
  --report MODE      the deployment's report setting, log or check_run (default: REPORT, else log)
  --dotenv FILE      read settings and credentials from FILE (no other .env is read
                     outside reprise's own checkout)
  --json             print the checks as JSON
  -h, --help         this help

Exit codes: 0 every check passed, 1 a check failed or the credentials were refused, 2 bad usage.`;

const OPTIONS = {
  stack: { type: 'string' },
  'webhook-url': { type: 'string' },
  table: { type: 'string' },
  local: { type: 'string' },
  'data-dir': { type: 'string' },
  decisions: { type: 'string' },
  report: { type: 'string' },
} as const;

const LABEL: Record<Check['status'], string> = { ok: 'OK', fail: 'FAIL', warn: 'WARN', skip: 'SKIP' };

const describe = (err: unknown): string | undefined => describeGitHubError(err) ?? describeAwsError(err);

/** Runs one check; a fault becomes that check's failure, not the end of the report. */
async function run(io: CliIo, name: string, fn: () => Promise<Check>): Promise<Check> {
  try {
    return await withProgress(io, `checking ${name}`, fn);
  } catch (err) {
    return { name, status: 'fail', detail: err instanceof CliError ? err.message : (describe(err) ?? String(err)) };
  }
}

type StatusFlags = ReturnType<typeof parseCommand<typeof OPTIONS>>['values'];
type AppClient = ReturnType<typeof appClient>;

/** The App itself (`GET /app`), read first: if GitHub refuses the credentials, nothing else can be checked. */
async function readApp(io: CliIo, app: AppClient): Promise<AppFacts> {
  const { data: me } = await withProgress(io, 'reading the App', () => app.request('GET /app'));
  if (!me) throw new CliError('GET /app answered without an App');
  const owner = me.owner as { login?: string; type?: string } | null;
  const origin = new URL(me.html_url).origin;
  return {
    id: me.id,
    slug: me.slug ?? '',
    name: me.name,
    htmlUrl: me.html_url,
    settingsUrl: `${origin}${owner?.type === 'Organization' ? `/organizations/${owner.login}` : ''}/settings/apps/${me.slug}`,
  };
}

/** What GitHub says: the webhook URL, the installations and their permissions, the deliveries, the rate limit. */
async function githubChecks(
  io: CliIo,
  app: AppClient,
  facts: AppFacts,
  o: { expectedHook: string | undefined; report: 'log' | 'check_run'; clients: () => ReturnType<typeof workerClients> },
): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push(await run(io, 'webhook URL', () => checkWebhook(app, facts, o.expectedHook)));
  let installations: Awaited<ReturnType<typeof listInstallations>> = [];
  checks.push(
    await run(io, 'installations', async () => {
      installations = await listInstallations(app);
      return checkInstallations(installations, facts, o.report);
    }),
  );
  checks.push(await run(io, 'merge queue', async () => checkMergeQueuePermissions(installations)));
  checks.push(await run(io, 'deliveries', () => checkDeliveries(app)));
  const clients = o.clients();
  checks.push(await run(io, 'rate limit', () => checkRateLimit(installations, clients)));
  return checks;
}

/** What the ledger says: the last decisions, a pause, the last signal, the EKS listings. */
async function ledgerChecks(
  io: CliIo,
  v: StatusFlags,
  outputs: Awaited<ReturnType<typeof stackOutputs>> | undefined,
  count: number,
): Promise<Check[]> {
  const local = localUrl(io.env, v.local);
  const table = v.table ?? (local ? undefined : outputs?.get('TableName'));
  const source = ledgerSource(io, { table, local, dataDir: v['data-dir'] });
  source.catch(() => undefined);
  const checks: Check[] = [];
  checks.push(await run(io, 'decisions', async () => checkDecisions(await source, count)));
  checks.push(await run(io, 'pause', async () => checkPauses(await source)));
  const now = (io.now ?? Date.now)();
  checks.push(await run(io, 'last signal', async () => checkLastSignal(await source, now)));
  checks.push(await run(io, 'EKS pods', async () => checkEksListings(await source)));
  return checks;
}

/** Each check on its line (OK, FAIL, WARN, SKIP), its further lines indented, then its fix. */
function printChecks(io: CliIo, apiUrl: string, facts: AppFacts, checks: readonly Check[], failed: number): void {
  println(io.stdout, `reprise status: App ${facts.name} (id ${facts.id}) at ${apiUrl}`);
  for (const c of checks) {
    const [first, ...rest] = c.detail.split('\n');
    println(io.stdout, `${LABEL[c.status].padEnd(5)} ${c.name.padEnd(14)} ${first}`);
    for (const line of rest) println(io.stdout, `${' '.repeat(21)}${line}`);
    if (c.fix) println(io.stdout, `${' '.repeat(6)}fix: ${c.fix}`);
  }
  println(io.stdout, failed === 0 ? 'All checks passed.' : `${failed} check(s) failed.`);
}

/** `reprise status`: checks that the GitHub App and the deployment work together, each check with its fix. */
export async function status(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'status',
    HELP,
    argv,
    io,
    async () => {
      const { values: v } = parseCommand('status', argv, OPTIONS);
      const count = parseCount(v.decisions, 'decisions', 5);
      if (v.report !== undefined && v.report !== 'check_run' && v.report !== 'log') {
        throw new UsageError(`--report: expected check_run or log, got "${v.report}"`);
      }
      const settings = githubSettings(io, v.json === true);
      const report = v.report ?? settings.defaults.report ?? 'log';
      const creds = credentialsFrom(io.env, false);
      if (creds.kind !== 'app') throw new CliError('status needs App credentials');
      const app = appClient(settings.apiUrl, creds, io);
      const facts = await readApp(io, app);
      const outputs = v.stack ? await stackOutputs(io, v.stack) : undefined;
      const expectedHook = v['webhook-url'] ?? outputs?.get('WebhookUrl');
      const clients = () => workerClients(settings, creds);
      const checks = [
        ...(await githubChecks(io, app, facts, { expectedHook, report, clients })),
        ...(await ledgerChecks(io, v, outputs, count)),
      ];
      const failed = checks.filter((c) => c.status === 'fail').length;
      if (v.json) printJson(io, { app: facts, ok: failed === 0, checks });
      else printChecks(io, settings.apiUrl, facts, checks, failed);
      return failed === 0 ? 0 : 1;
    },
    describe,
  );
}
