import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RuntimeSettings } from '../config/env.js';
import { runtimeSettings, webhookSecretsFrom } from '../config/env.js';
import { fromEnv } from '../config/settings-schema.js';
import { credentialsFromEnv } from '../config/secrets.js';
import { ConfigError } from '../errors.js';
import { createAppClient, createClientFactory } from '../github/client.js';
import { httpLambda } from '../http/lambda-http.js';
import { Ledger } from '../ledger/ledger.js';
import { DynamoRerunOutcomes } from '../ledger/outcomes.js';
import { DynamoQueuedJobs } from '../ledger/queued-jobs.js';
import { DynamoPacing } from '../ledger/pacing.js';
import { JsonLinesEvents } from '../events/jsonl-file.js';
import type { Log } from '../obs/types.js';
import { MemoryMetrics } from '../obs/memory-metrics.js';
import { limitsFrom, Reconciler } from '../reconcile/reconciler.js';
import { startSweepTimer } from '../reconcile/timer.js';
import { JobRunnerStore } from '../signals/job-runners.js';
import { RunnerKeys } from '../signals/runner-keys.js';
import { createSignalIntake } from '../intake/signal-intake.js';
import { SignalStore } from '../signals/signal-store.js';
import { createIntake } from '../intake/webhook-intake.js';
import { MAX_RECEIVE_BATCH } from '../webhook/sqs-limits.js';
import type { RunOutcome } from '../worker/worker-deps.js';
import { workerDeps } from '../compose/worker.js';
import { createWorkerHandler } from '../worker/handler.js';
import type { RunMessage } from '../model.js';
import { adminRoutes } from './admin-routes.js';
import { adminTokenPath, loadOrCreateAdminToken, requireToken } from './admin-token.js';
import { nextBoot } from './boot.js';
import { type EmbeddedDynamo, startDynamo } from './dynamo.js';
import { type Routes, serveRoutes } from './http-server.js';
import { secureDataDir } from './data-dir.js';
import { openRunQueue } from './open-queue.js';
import { QueuePoller } from './queue-poller.js';
import { type EmbeddedFifoQueue, embeddedRunQueue } from './queue.js';
import { recoverAfterRestart } from './recover.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RuntimeOptions {
  readonly env: Env;
  readonly log: Log;
  readonly port?: number;
  readonly host?: string;
  /** Keep the ledger and the queue on disk here; in memory (nothing kept across restarts) when absent. */
  readonly dataDir?: string;
  /**
   * Port of the operator routes (`GET /decisions`, `POST /replay`), always on 127.0.0.1.
   * @default `port + 1`, or any free port when `port` is 0
   */
  readonly adminPort?: number;
  /**
   * The key the operator routes ask for. Absent: read from (or created in) `adminTokenFile`,
   * else `<dataDir>/admin-token`; with neither, a fresh one held in memory.
   */
  readonly adminToken?: string;
  readonly adminTokenFile?: string;
  readonly visibilityTimeoutMs?: number;
  readonly maxReceiveCount?: number;
  /** The queue's clock (visibility timeouts, deduplication window); tests move it by hand. */
  readonly queueClock?: () => number;
  /**
   * The clock of the queue (unless `queueClock` is given), the ledger's claims and the re-run
   * pace; tests move it by hand.
   */
  readonly clock?: () => number;
  /** Spacing of this process's REST writes per installation, in ms; WRITE_SPACING_MS when absent. */
  readonly writeSpacingMs?: number;
  /** Worker loops receiving from the queue; WORKER_CONCURRENCY when absent. */
  readonly workerConcurrency?: number;
  /** Base of the GitHub client's retry backoff, in ms. */
  readonly retryBaseMs?: number;
  /** A GitHub request's timeout, in ms; GITHUB_REQUEST_TIMEOUT_MS when absent. */
  readonly requestTimeoutMs?: number;
  /** How long a worker's claim on a run attempt lasts before the reconciler may take it back. */
  readonly leaseMs?: number;
  /** Milliseconds per second of a worker's deferral (rate limit, backoff); tests shorten it. */
  readonly deferUnitMs?: number;
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
  /** Append every event to this JSON-lines file (overrides `EVENTS_FILE`). */
  readonly eventsFile?: string;
}

export interface Runtime {
  /** The public port: `POST /webhook`, `POST /signals`, `GET /healthz`, nothing else. */
  readonly url: string;
  /** The operator routes, loopback only, each behind `Authorization: Bearer <adminToken>`. */
  readonly adminUrl: string;
  readonly adminToken: string;
  /** Where the admin token is kept, when it is kept on disk. */
  readonly adminTokenFile?: string;
  readonly settings: RuntimeSettings;
  readonly dynamo: EmbeddedDynamo;
  readonly ledger: Ledger;
  readonly signals: SignalStore;
  readonly queue: EmbeddedFifoQueue;
  readonly poller: QueuePoller;
  readonly reconciler: Reconciler;
  readonly queuedJobs: DynamoQueuedJobs;
  /** The events file, when events are written. */
  readonly events?: JsonLinesEvents;
  readonly metrics: MemoryMetrics;
  readonly server: Server;
  readonly adminServer: Server;
  close(): Promise<void>;
}

export const TABLE_NAME = 'reprise';

/**
 * Runs the deployed handlers on one machine: an HTTP server in front of the intake, an
 * embedded DynamoDB (dynalite) and FIFO queue, and the worker polling that queue.
 */
export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const settings = runtimeSettings(opts.env);
  const secrets = webhookSecretsFrom(opts.env);
  if (secrets.length === 0) throw new ConfigError('WEBHOOK_SECRET is required');
  const credentials = credentialsFromEnv(opts.env, { allowToken: true });
  const log = opts.log;
  const metrics = new MemoryMetrics();

  // Private before the ledger opens in it, and again once LevelDB has made its first files.
  if (opts.dataDir) await secureDataDir(opts.dataDir);
  const boot = nextBoot(opts.dataDir);
  const dynamo = await startDynamo({ table: TABLE_NAME, ...(opts.dataDir && { path: opts.dataDir }) });
  if (opts.dataDir) await secureDataDir(opts.dataDir);
  const ledger = new Ledger(dynamo.client, TABLE_NAME, opts.clock);
  const runnerKeys = new RunnerKeys(settings.runnerNamePatterns);
  const signals = new SignalStore(dynamo.client, TABLE_NAME, settings.signalTtlSeconds, undefined, runnerKeys);
  const maxReceiveCount = opts.maxReceiveCount ?? 5;
  const runQueue = await openRunQueue({
    name: 'reprise-runs.fifo',
    visibilityTimeoutMs: opts.visibilityTimeoutMs ?? 6 * 60_000,
    maxReceiveCount,
    ...((opts.queueClock ?? opts.clock) && { now: opts.queueClock ?? opts.clock }),
    durable: opts.dataDir ? dynamo : undefined,
    onError: (err) => log.error('queue journal write failed', { error: (err as Error).message }),
  });
  const queue = runQueue.queue;

  const enqueue = embeddedRunQueue(queue);
  const clients = createClientFactory({
    apiUrl: settings.apiUrl,
    credentials,
    log,
    ...(opts.retryBaseMs !== undefined && { retryBaseMs: opts.retryBaseMs }),
    ...(opts.requestTimeoutMs !== undefined && { requestTimeoutMs: opts.requestTimeoutMs }),
    writeSpacingMs: opts.writeSpacingMs ?? settings.pace.spacingMs,
  });

  const outcomes = new DynamoRerunOutcomes(dynamo.client, TABLE_NAME, settings.breaker);
  const queuedJobs = new DynamoQueuedJobs(dynamo.client, TABLE_NAME, opts.clock);
  const eventsFile = opts.eventsFile ?? settings.events.file;
  const events = eventsFile ? new JsonLinesEvents(eventsFile) : undefined;
  const intake = createIntake({
    queuedJobs,
    ...(events && { events }),
    ...(opts.clock && { now: opts.clock }),
    secrets: async () => secrets,
    deliveries: ledger,
    jobs: new JobRunnerStore(dynamo.client, TABLE_NAME, undefined, runnerKeys),
    outcomes,
    queue: enqueue,
    log,
    metrics,
  });

  const worker = createWorkerHandler({
    ...workerDeps(settings, {
      dynamo: dynamo.client,
      table: TABLE_NAME,
      ledger,
      client: clients,
      signals,
      log,
      metrics,
      owner: boot.owner,
      leaseMs: opts.leaseMs ?? 5 * 60_000,
      ...(opts.clock && { now: opts.clock }),
      ...(events && { events }),
    }),
    maxReceiveCount,
    defer: async (record, seconds) => {
      queue.changeVisibility(record.receiptHandle, seconds * (opts.deferUnitMs ?? 1000));
      await queue.persisted([record.messageId]);
    },
    ...(opts.onOutcome && { onOutcome: opts.onOutcome }),
  });
  const poller = new QueuePoller(queue, worker, {
    batchSize: MAX_RECEIVE_BATCH,
    concurrency: opts.workerConcurrency ?? fromEnv(opts.env, 'workerConcurrency'),
    onError: (err) => log.error('worker batch failed', { error: (err as Error).message }),
  });

  const reconciler = new Reconciler({
    ledger,
    client: clients,
    graphqlUrl: settings.graphqlUrl,
    apiUrl: settings.apiUrl,
    ...(credentials.kind === 'app' && {
      appClient: createAppClient({
        apiUrl: settings.apiUrl,
        credentials,
        log,
        ...(opts.retryBaseMs !== undefined && { retryBaseMs: opts.retryBaseMs }),
        ...(opts.requestTimeoutMs !== undefined && { requestTimeoutMs: opts.requestTimeoutMs }),
      }),
    }),
    queue: enqueue,
    outcomes,
    stuck: {
      queuedJobs,
      defaults: settings.defaults,
      pacing: new DynamoPacing(dynamo.client, TABLE_NAME, settings.pace, opts.clock),
    },
    ...(events && { events }),
    ...(opts.clock && { now: opts.clock }),
    log,
    metrics,
    limits: limitsFrom(settings.reconcile),
  });

  const { server, url } = await serveRoutes(
    {
      'POST /webhook': httpLambda(intake),
      'POST /signals': httpLambda(
        createSignalIntake({
          secrets: async () => (opts.env.SIGNAL_SECRET ? [opts.env.SIGNAL_SECRET] : []),
          store: signals,
          log,
          metrics,
        }),
      ),
      'GET /healthz': async () => ({
        statusCode: 200,
        body: JSON.stringify({ ok: true, github: settings.apiUrl, queue: queue.stats() }),
      }),
    },
    opts.port ?? 3000,
    opts.host ?? '127.0.0.1',
    (err) => log.error('request failed', { error: (err as Error).message }),
  );
  // Operator routes never share the port a tunnel exposes to GitHub, and still ask for the key:
  // loopback alone does not keep out other local users or a browser page aimed at localhost.
  const adminTokenFile = opts.adminTokenFile ?? (opts.dataDir ? adminTokenPath(opts.dataDir) : undefined);
  const adminToken =
    opts.adminToken ??
    (adminTokenFile ? await loadOrCreateAdminToken(adminTokenFile) : randomBytes(32).toString('base64url'));
  const admin: Routes = Object.fromEntries(
    Object.entries(adminRoutes({ ledger, queue: enqueue, log })).map(([route, handler]) => [
      route,
      requireToken(adminToken, handler),
    ]),
  );
  const publicPort = (server.address() as AddressInfo).port;
  const { server: adminServer, url: adminUrl } = await serveRoutes(
    admin,
    opts.adminPort ?? (opts.port === 0 ? 0 : publicPort + 1),
    '127.0.0.1',
    (err) => log.error('admin request failed', { error: (err as Error).message }),
  );
  if (opts.dataDir) {
    const swept = await recoverAfterRestart({
      ledger,
      queue,
      enqueue,
      client: clients,
      graphqlUrl: settings.graphqlUrl,
      owner: boot.owner,
      ...(events && { events }),
      log,
      metrics,
      now: opts.clock ?? Date.now,
    });
    log.info('restart: queue and claims of earlier processes settled', {
      generation: boot.generation,
      queue: runQueue.restored,
      claims: swept,
    });
  } else {
    log.warn('no --data-dir: the ledger and the queue are in memory, and nothing is kept across restarts');
  }
  poller.start();
  const sweeps =
    settings.reconcile.intervalSeconds > 0
      ? startSweepTimer(reconciler, settings.reconcile.intervalSeconds * 1000, log)
      : undefined;
  log.info('reprise local runtime listening', {
    url,
    webhook: `${url}/webhook`,
    admin: adminUrl,
    ...(adminTokenFile && { admin_token_file: adminTokenFile }),
    github: settings.apiUrl,
    graphql: settings.graphqlUrl,
    auth: credentials.kind === 'app' ? `GitHub App ${credentials.appId}` : 'GITHUB_TOKEN',
    dynamodb: opts.dataDir ? `dynalite on disk at ${opts.dataDir}` : 'dynalite in memory',
    queue: opts.dataDir ? `journaled to dynalite at ${opts.dataDir}` : 'in memory: nothing kept across restarts',
    ...(opts.dataDir && { generation: boot.generation }),
    ...(eventsFile && { events_file: eventsFile }),
  });

  return {
    url,
    adminUrl,
    adminToken,
    ...(adminTokenFile && { adminTokenFile }),
    settings,
    dynamo,
    ledger,
    signals,
    queue,
    poller,
    reconciler,
    queuedJobs,
    ...(events && { events }),
    metrics,
    server,
    adminServer,
    close: async () => {
      await sweeps?.stop();
      await poller.stop();
      await Promise.all(
        [server, adminServer].map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
      await runQueue.settle();
      await dynamo.close();
    },
  };
}
