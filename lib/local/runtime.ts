/**
 * The local runtime, as `npm start` runs it: the deployed handlers on one machine. An HTTP server
 * in front of the intake, an embedded DynamoDB (dynalite) and FIFO queue, the worker polling that
 * queue, the reconciler on a timer, and the operator routes on a port of their own. `startRuntime`
 * composes it from the named parts below, in the order they must start.
 */
import type { AddressInfo } from 'node:net';
import { deploymentSettings, webhookSecretsFrom } from '../config/env.js';
import { composeDeadLetters, type DeadLetterHandling, recoverAfterRestart } from '../compose/recovery.js';
import { composeReplay } from '../compose/replay.js';
import { startReconcilerTimer } from '../compose/reconciler.js';
import { DEFAULT_LEASE_MS } from '../compose/worker.js';
import { fromEnv } from '../config/settings-schema.js';
import { credentialsFromEnv } from '../config/secrets.js';
import { scopeWarning, signalSecretsFrom, signalSettings, signalToleranceMsFrom } from '../config/signal-settings.js';
import { ConfigError } from '../errors.js';
import { JsonLinesEvents } from '../events/jsonl-file.js';
import { openLedger } from '../ledger/ledger.js';
import { MemoryMetrics } from '../obs/memory-metrics.js';
import { openRunQueue, type OpenedQueue, QueuePoller } from '../queue/open-embedded.js';
import { MAX_RECEIVE_BATCH } from '../queue/sqs-limits.js';
import { serveAdmin } from './admin-server.js';
import { adminTokenPath, discardExposedAdminToken } from './admin-token.js';
import { type Boot, nextBoot } from './boot.js';
import { secureDataDir } from './data-dir.js';
import { startDynamo } from './dynamo.js';
import { closeServer, serveRoutes } from './http-server.js';
import { type LocalProcesses, localProcesses } from './processes.js';
import type {
  BaseOptions,
  GitHubOptions,
  PortOptions,
  LocalQueueOptions,
  Runtime,
  RuntimeOptions,
  StoreOptions,
  WorkerOptions,
} from './runtime-options.js';
import { withTestFaults } from './test-faults.js';

export type { Runtime, RuntimeOptions } from './runtime-options.js';

/** The ledger's table in the embedded DynamoDB. */
export const TABLE_NAME = 'reprise';

/** Runs the deployed handlers on one machine; resolves once both ports listen and the worker polls. */
export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const config = readConfiguration(opts);
  const stores = await openStores(opts, config);
  const opened = await openQueue(opts, stores);
  const processes = assembleProcesses(opts, config, stores, opened);
  const poller = new QueuePoller(opened.queue, processes.worker, {
    batchSize: MAX_RECEIVE_BATCH,
    concurrency: config.workerConcurrency,
    onError: (err) => opts.log.error('worker batch failed', { error: (err as Error).message }),
  });
  const ports = await servePorts(opts, config, stores, opened, processes);
  await recoverOrWarn(opts, config, stores, opened, processes);
  poller.start();
  const sweeps = startReconcilerTimer(config.settings, processes.reconciler, opts.log);
  announce(opts, config, stores, ports);
  return {
    ...ports,
    settings: config.settings,
    dynamo: stores.dynamo,
    ledger: stores.ledger,
    queue: opened.fifo,
    poller,
    reconciler: processes.reconciler,
    queuedJobs: stores.ledger.queuedJobs,
    ...(stores.events && { events: stores.events }),
    metrics: stores.metrics,
    close: async () => {
      await sweeps?.stop();
      await poller.stop();
      await Promise.all([ports.server, ports.adminServer].map(closeServer));
      await opened.settle();
      await stores.dynamo.close();
    },
  };
}

/** What the environment configures, read whole before anything starts, so a bad setting starts nothing. */
function readConfiguration(opts: BaseOptions & WorkerOptions) {
  const { env, log } = opts;
  const settings = deploymentSettings(env);
  const webhookSecrets = webhookSecretsFrom(env);
  if (webhookSecrets.length === 0) throw new ConfigError('WEBHOOK_SECRET is required');
  const credentials = credentialsFromEnv(env, { allowToken: true });
  const signalSecrets = signalSecretsFrom(env);
  for (const w of new Set(signalSecrets.map((s) => scopeWarning(s.scope)))) if (w) log.warn(w);
  return {
    settings,
    webhookSecrets,
    credentials,
    signalSecrets,
    signalToleranceMs: signalToleranceMsFrom(env),
    ec2Signal: signalSettings(env),
    workerConcurrency: opts.workerConcurrency ?? fromEnv(env, 'workerConcurrency'),
  };
}
type Configuration = ReturnType<typeof readConfiguration>;

/** The data dir made private, this start's boot, the embedded DynamoDB with the ledger in it, the events file. */
async function openStores(opts: BaseOptions & PortOptions & StoreOptions & WorkerOptions, config: Configuration) {
  const { dataDir, log } = opts;
  // A token others could read is replaced, not narrowed: before the directory is tightened.
  const tokenFile = opts.adminTokenFile ?? (dataDir ? adminTokenPath(dataDir) : undefined);
  if (opts.adminToken === undefined && tokenFile && (await discardExposedAdminToken(tokenFile))) {
    log.warn('admin token file was readable by others: replaced by a new token', { file: tokenFile });
  }
  // Private before the ledger opens in it, and again once LevelDB has made its first files.
  if (dataDir) await secureDataDir(dataDir);
  const boot: Boot = nextBoot(dataDir);
  const dynamo = await startDynamo({ table: TABLE_NAME, ...(dataDir && { path: dataDir }) });
  if (dataDir) await secureDataDir(dataDir);
  const ledger = openLedger(dynamo.client, TABLE_NAME, opts.clock);
  const eventsFile = opts.eventsFile ?? config.settings.events.file;
  const events = eventsFile ? new JsonLinesEvents(eventsFile) : undefined;
  const metrics = new MemoryMetrics();
  const deadLetters: DeadLetterHandling = composeDeadLetters({
    ledger,
    owner: boot.owner,
    leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS,
    ...(events && { events }),
    log,
    metrics,
    now: opts.clock ?? Date.now,
  });
  return { boot, dynamo, ledger, eventsFile, events, metrics, deadLetters };
}
type Stores = Awaited<ReturnType<typeof openStores>>;

/** The run queue, journaled beside the ledger on a data dir; a message it dead-letters is recorded abandoned. */
function openQueue(opts: BaseOptions & StoreOptions & LocalQueueOptions & WorkerOptions, stores: Stores) {
  const { log } = opts;
  const clock = opts.queueClock ?? opts.clock;
  return openRunQueue({
    name: 'reprise-runs.fifo',
    visibilityTimeoutMs: opts.visibilityTimeoutMs ?? 6 * 60_000,
    maxReceiveCount: opts.maxReceiveCount,
    now: clock,
    durable: opts.dataDir ? stores.dynamo : undefined,
    contract: { unitMs: opts.deferUnitMs ?? 1000 },
    onError: (err) => log.error('queue journal write failed', { error: (err as Error).message }),
    // Only now, after MAX_RECEIVE_COUNT receives, is the message's attempt recorded abandoned.
    onDeadLetter: ({ record, reason }) =>
      void stores.deadLetters
        .abandon({
          body: record.body,
          messageId: record.messageId,
          receives: Number(record.attributes.ApproximateReceiveCount),
          reason,
        })
        .catch((err: Error) =>
          log.error('dead-lettered attempt not recorded abandoned', {
            message_id: record.messageId,
            error: err.message,
          }),
        ),
  });
}

/** The four processes of the deployed stack, sharing this process's ledger, queue, clock and GitHub client. */
function assembleProcesses(
  opts: BaseOptions & GitHubOptions & WorkerOptions,
  config: Configuration,
  stores: Stores,
  { queue }: OpenedQueue,
): LocalProcesses {
  const { retryBaseMs, requestTimeoutMs, writeSpacingMs } = opts;
  return localProcesses({
    settings: config.settings,
    credentials: config.credentials,
    webhookSecrets: config.webhookSecrets,
    signalSecrets: config.signalSecrets,
    signalToleranceMs: config.signalToleranceMs,
    ec2Signal: config.ec2Signal,
    ledger: withTestFaults(stores.ledger, opts.env),
    queue,
    maxReceiveCount: queue.maxReceiveCount,
    owner: stores.boot.owner,
    log: opts.log,
    metrics: stores.metrics,
    // Each part reads an absent option as its default.
    events: stores.events,
    now: opts.clock,
    github: { retryBaseMs, requestTimeoutMs, writeSpacingMs },
    leaseMs: opts.leaseMs,
    onOutcome: opts.onOutcome,
  });
}

/** The public port (the intake, the signals, health) and the operator's, loopback only and behind the admin token. */
async function servePorts(
  opts: BaseOptions & PortOptions & StoreOptions,
  config: Configuration,
  stores: Stores,
  { queue }: OpenedQueue,
  processes: LocalProcesses,
) {
  const { log } = opts;
  const { server, url } = await serveRoutes(
    {
      'POST /webhook': processes.intake,
      'POST /signals': processes.signalIntake,
      'GET /healthz': async () => ({
        statusCode: 200,
        body: JSON.stringify({ ok: true, github: config.settings.apiUrl, queue: queue.stats() }),
      }),
    },
    opts.port ?? 3000,
    opts.host ?? '127.0.0.1',
    (err) => log.error('request failed', { error: (err as Error).message }),
  );
  const publicPort = (server.address() as AddressInfo).port;
  const admin = await serveAdmin({
    ledger: stores.ledger,
    replay: composeReplay({ attempts: stores.ledger.attempts, queue, log }),
    ec2Events: processes.ec2Signal,
    // The abandoned records given back first, so the redriven messages are decided again.
    redrive: async () => {
      const released = await stores.deadLetters.release((await queue.deadLetters()).map((letter) => letter.body));
      return { redriven: await queue.redrive(), released };
    },
    log,
    port: opts.adminPort ?? (opts.port === 0 ? 0 : publicPort + 1),
    token: opts.adminToken,
    tokenFile: opts.adminTokenFile,
    dataDir: opts.dataDir,
  });
  return {
    url,
    adminUrl: admin.url,
    adminToken: admin.token,
    ...(admin.tokenFile && { adminTokenFile: admin.tokenFile }),
    server,
    adminServer: admin.server,
  };
}
type Ports = Awaited<ReturnType<typeof servePorts>>;

/** On a data dir, settles the claims and messages earlier processes left; in memory, says nothing is kept. */
async function recoverOrWarn(
  opts: BaseOptions & StoreOptions,
  config: Configuration,
  stores: Stores,
  opened: OpenedQueue,
  processes: LocalProcesses,
): Promise<void> {
  if (!opts.dataDir) {
    opts.log.warn('no --data-dir: the ledger and the queue are in memory, and nothing is kept across restarts');
    return;
  }
  const swept = await recoverAfterRestart({
    ledger: stores.ledger,
    queuedBodies: () => opened.queue.bodies(),
    queue: opened.queue,
    client: processes.client,
    graphqlUrl: config.settings.graphqlUrl,
    owner: stores.boot.owner,
    ...(stores.events && { events: stores.events }),
    log: opts.log,
    metrics: stores.metrics,
    now: opts.clock ?? Date.now,
  });
  opts.log.info('restart: queue and claims of earlier processes settled', {
    generation: stores.boot.generation,
    queue: opened.restored,
    claims: swept,
  });
}

/** The one line that says where everything is: the ports, GitHub, the credentials' kind, what is kept on disk. */
function announce(opts: BaseOptions & StoreOptions, config: Configuration, stores: Stores, ports: Ports): void {
  const { settings, credentials } = config;
  const { url, adminUrl, adminTokenFile } = ports;
  opts.log.info('reprise local runtime listening', {
    url,
    webhook: `${url}/webhook`,
    admin: adminUrl,
    ...(adminTokenFile && { admin_token_file: adminTokenFile }),
    github: settings.apiUrl,
    graphql: settings.graphqlUrl,
    auth: credentials.kind === 'app' ? `GitHub App ${credentials.appId}` : 'GITHUB_TOKEN',
    dynamodb: opts.dataDir ? `dynalite on disk at ${opts.dataDir}` : 'dynalite in memory',
    queue: opts.dataDir ? `journaled to dynalite at ${opts.dataDir}` : 'in memory: nothing kept across restarts',
    ...(opts.dataDir && { generation: stores.boot.generation }),
    ...(stores.eventsFile && { events_file: stores.eventsFile }),
  });
}
