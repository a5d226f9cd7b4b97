import { randomUUID } from 'node:crypto';
import { composeReplay } from '../compose/replay.js';
import { describeAwsError, requireOutput, runQueue, stackOutputs } from './aws.js';
import {
  type AppClient,
  appClient,
  credentialsFrom,
  describeGitHubError,
  installationFor,
  githubSettings,
  workerClients,
} from './github.js';
import { CliError, type CliIo, parseCommand, printJson, println, runCommand, UsageError, withProgress } from './io.js';
import { tableLedger } from './ledger-source.js';
import { localRequest, localUrl } from './local-runtime.js';
import type { ReplayVerdict } from '../replay/replay-guard.js';
import { parseRunRef, readLiveRun } from './run-lookup.js';
import type { HookDelivery } from '../github/hook-deliveries.js';

const HELP = `reprise replay: send a delivery or a run attempt through reprise again.

Usage: reprise replay <delivery-guid> [--force]
       reprise replay <owner/repo#run_id[@attempt]> (--local [URL] | --stack NAME | --queue-url URL --table NAME) [--force]
       reprise replay --dead-letters --local [URL]

A delivery GUID asks GitHub to redeliver that webhook (App credentials needed). Use it for
deliveries that failed; the intake drops a redelivery of an accepted one as a duplicate.

A run attempt is read from GitHub and put on the work queue for a new decision: the local
runtime's (--local) or the deployed SQS queue (--stack, or --queue-url with --table). The
ledger is honoured: an attempt already decided is reported ("already decided: <decision>")
and not sent. --force gives back an earlier decision so the attempt is decided again, but
never one that re-ran the run (retried, retried_all): the worker's claim still guards
against a double re-run.

--dead-letters moves every message of the local runtime's dead-letter queue back to its work
queue (a redrive). A message goes there after MAX_RECEIVE_COUNT receives without a decision
(a stop of the runtime while deciding it counts as one), and its attempt is recorded abandoned;
the redrive gives that record back so the attempt is decided again. Deployed, redrive the
dead-letter queue with "aws sqs start-message-move-task".

Options:
  --dead-letters    redrive the local runtime's dead-letter queue (with --local)
  --local [URL]     a running local runtime's admin port (npm start); without URL
                    http://127.0.0.1:ADMIN_PORT (default PORT + 1, i.e. 3001)
  --data-dir DIR    with --local: the runtime's --data-dir (its admin-token file; default .reprise)
  --stack NAME      the deployed queue and table, from the stack outputs QueueUrl and TableName
  --queue-url URL   the SQS FIFO work queue
  --table NAME      the DynamoDB table holding the ledger
  --attempt N       the attempt (default: the latest; also owner/repo#run_id@N)
  --force           see above
  --dotenv FILE     read settings and credentials from FILE (no other .env is read
                    outside reprise's own checkout)
  --json            print the outcome as JSON
  -h, --help        this help

Credentials: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH); a run also works with GITHUB_TOKEN.
Exit codes: 0 sent, or already decided/delivered; 1 refused, in progress, unknown run or delivery; 2 bad usage.`;

const OPTIONS = {
  local: { type: 'string' },
  'data-dir': { type: 'string' },
  stack: { type: 'string' },
  'queue-url': { type: 'string' },
  table: { type: 'string' },
  attempt: { type: 'string' },
  force: { type: 'boolean' },
  'dead-letters': { type: 'boolean' },
} as const;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** GitHub keeps deliveries 3 days (7 on GHES); a few pages of 100 cover them. */
const DELIVERY_PAGES = 30;

type Delivery = HookDelivery;

interface Outcome {
  readonly outcome: string;
  readonly message: string;
  readonly exitCode: number;
  readonly [k: string]: unknown;
}

async function replayDelivery(app: AppClient, apiUrl: string, guid: string, force: boolean): Promise<Outcome> {
  const found: Delivery[] = [];
  let pages = 0;
  for await (const page of app.paginate.iterator('GET /app/hook/deliveries', { per_page: 100 })) {
    found.push(...(page.data as unknown as Delivery[]).filter((d) => d.guid.toLowerCase() === guid.toLowerCase()));
    if (++pages >= DELIVERY_PAGES) break;
  }
  const latest = found[0];
  if (!latest) {
    throw new CliError(`no delivery ${guid} among the App's recent deliveries (GET ${apiUrl}/app/hook/deliveries)`);
  }
  const ok = latest.status_code >= 200 && latest.status_code < 300;
  const what = `${latest.event}${latest.action ? `.${latest.action}` : ''}`;
  if (ok && !force) {
    return {
      outcome: 'already_delivered',
      exitCode: 0,
      guid,
      message:
        `already delivered: ${guid} (${what}) was answered ${latest.status_code} at ${latest.delivered_at}. ` +
        'The intake drops a redelivery of the same GUID as a duplicate; replay the run (owner/repo#run_id) to decide it again, or --force',
    };
  }
  await app.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: latest.id });
  return {
    outcome: 'redelivered',
    exitCode: 0,
    guid,
    deliveryId: latest.id,
    message: `redelivery requested: ${guid} (${what}, delivery ${latest.id}, last answered ${latest.status_code || 'timed out'})`,
  };
}

function describeVerdict(v: ReplayVerdict, target: string, deliveryId: string): Outcome {
  switch (v.kind) {
    case 'enqueue':
      return {
        outcome: 'enqueued',
        exitCode: 0,
        deliveryId,
        ...(v.released && { released: v.released }),
        message:
          `enqueued ${target} for a new decision (delivery ${deliveryId})` +
          (v.released ? `; the earlier record (${v.released}) was released` : ''),
      };
    case 'already_decided':
      return {
        outcome: 'already_decided',
        exitCode: 0,
        decision: v.decision,
        reason: v.reason,
        message: `already decided: ${v.decision} (${v.reason}); --force decides it again unless it was re-run`,
      };
    case 'in_progress':
      return { outcome: 'in_progress', exitCode: 1, message: v.reason };
    case 'refused':
      return { outcome: 'refused', exitCode: 1, message: `refused: ${v.reason}` };
  }
}

interface RunOptions {
  readonly local?: string;
  readonly 'data-dir'?: string;
  readonly stack?: string;
  readonly 'queue-url'?: string;
  readonly table?: string;
  readonly attempt?: string;
  readonly force?: boolean;
  readonly json?: boolean;
}

async function replayRun(io: CliIo, target: string, v: RunOptions): Promise<Outcome> {
  const ref = parseRunRef([target], v.attempt);
  const local = localUrl(io.env, v.local);
  let queueUrl = v['queue-url'];
  let table = v.table;
  if (local && (queueUrl || table || v.stack))
    throw new UsageError('use either --local or the deployed queue, not both');
  if (v.stack && !local) {
    const outputs = await stackOutputs(io, v.stack);
    queueUrl ??= requireOutput(outputs, 'QueueUrl', v.stack);
    table ??= requireOutput(outputs, 'TableName', v.stack);
  }
  if (!local && !(queueUrl && table)) {
    throw new UsageError(
      'pass --local URL, --stack NAME, or --queue-url URL with --table NAME (the ledger is checked first)',
    );
  }
  const settings = githubSettings(io, v.json === true);
  const creds = credentialsFrom(io.env, true);
  const app = creds.kind === 'app' ? appClient(settings.apiUrl, creds, io) : undefined;
  const installationId = await installationFor(app, ref.owner, ref.repo);
  const deliveryId = `replay-${randomUUID()}`;
  const clients = workerClients(settings, creds)(installationId);
  const live = await readLiveRun(clients, ref, installationId, deliveryId, settings.graphqlUrl);
  const msg = live.message;
  const name = `${ref.owner}/${ref.repo}#${ref.runId}@${msg.runAttempt}`;
  if (live.status !== 'completed') {
    throw new CliError(`${name} is ${live.status}; replay it once it has completed`);
  }
  if (live.conclusion !== 'failure' && live.conclusion !== 'cancelled') {
    throw new CliError(`${name} concluded ${live.conclusion}; reprise decides only failed or cancelled runs`);
  }
  const force = v.force === true;
  const verdict = local
    ? ((await localRequest(
        io,
        { url: local, dataDir: v['data-dir'] },
        'POST',
        '/replay',
        { message: msg, force },
        [200, 409],
      )) as ReplayVerdict)
    : await composeReplay({ attempts: tableLedger(io, table!).attempts, queue: runQueue(io, queueUrl!) })(msg, force);
  return { target: name, ...describeVerdict(verdict, name, deliveryId) };
}

async function redriveDeadLetters(
  io: CliIo,
  positionals: readonly string[],
  v: RunOptions,
): Promise<{ redriven: number; released: number; message: string }> {
  if (positionals.length > 0) throw new UsageError('--dead-letters takes no delivery or run');
  const local = localUrl(io.env, v.local);
  if (!local) {
    throw new UsageError(
      '--dead-letters redrives the local runtime (--local); deployed, use aws sqs start-message-move-task',
    );
  }
  const done = (await localRequest(io, { url: local, dataDir: v['data-dir'] }, 'POST', '/redrive', {})) as {
    redriven: number;
    released: number;
  };
  return {
    ...done,
    message:
      `redrove ${done.redriven} dead letter${done.redriven === 1 ? '' : 's'}` +
      (done.released > 0 ? `; ${done.released} abandoned attempt(s) given back for a new decision` : ''),
  };
}

/** `reprise replay`: sends a webhook delivery or a run attempt through reprise again, behind the ledger's guard. */
export async function replay(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(
    'replay',
    HELP,
    argv,
    io,
    async () => {
      const { values: v, positionals } = parseCommand('replay', argv, OPTIONS, true);
      const [target, ...extra] = positionals;
      if (v['dead-letters']) {
        const result = await redriveDeadLetters(io, positionals, v);
        if (v.json) printJson(io, result);
        else println(io.stdout, result.message);
        return 0;
      }
      if (!target || extra.length > 0)
        throw new UsageError('expected one delivery GUID or owner/repo#run_id[@attempt]');
      const result = await withProgress(io, `replaying ${target}`, async () => {
        if (!GUID.test(target)) return replayRun(io, target, v);
        const settings = githubSettings(io, v.json === true);
        const creds = credentialsFrom(io.env, false);
        if (creds.kind !== 'app') throw new CliError('a delivery needs App credentials');
        return replayDelivery(appClient(settings.apiUrl, creds, io), settings.apiUrl, target, v.force === true);
      });
      const { exitCode, ...shown } = result;
      if (v.json) printJson(io, shown);
      else println(exitCode === 0 ? io.stdout : io.stderr, result.message);
      return exitCode;
    },
    (err) => describeGitHubError(err) ?? describeAwsError(err),
  );
}
