import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeploymentSettings } from '../config/env.js';
import { runtimeSettings, webhookSecretsFrom } from '../config/env.js';
import { composeDeadLetters, recoverAfterRestart } from '../compose/recovery.js';
import { composeReplay } from '../compose/replay.js';
import { type Reconciler, startReconcilerTimer } from '../compose/reconciler.js';
import { DEFAULT_LEASE_MS, type RunOutcome } from '../compose/worker.js';
import { fromEnv } from '../config/settings-schema.js';
import { credentialsFromEnv } from '../config/secrets.js';
import { scopeWarning, signalSecretsFrom, signalSettings, signalToleranceMsFrom } from '../config/signal-settings.js';
import { ConfigError } from '../errors.js';
import { JsonLinesEvents } from '../events/jsonl-file.js';
import { type Ledger, openLedger } from '../ledger/ledger.js';
import type { QueuedJobs } from '../ledger/queued-jobs.js';
import type { RunMessage } from '../model.js';
import { MemoryMetrics } from '../obs/memory-metrics.js';
import type { Log } from '../obs/types.js';
import { type EmbeddedFifoQueue, embeddedQueue, openRunQueue, QueuePoller } from '../queue/open-embedded.js';
import { MAX_RECEIVE_BATCH } from '../queue/sqs-limits.js';
import { serveAdmin } from './admin-server.js';
import { adminTokenPath, discardExposedAdminToken } from './admin-token.js';
import { nextBoot } from './boot.js';
import { secureDataDir } from './data-dir.js';
import { type EmbeddedDynamo, startDynamo } from './dynamo.js';
import { serveRoutes } from './http-server.js';
import { localProcesses } from './processes.js';
import { withTestFaults } from './test-faults.js';
import type { Env } from '../config/environment.js';

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
   * The clock of the queue (unless `queueClock` is given) and of the intake, the worker and the
   * reconciler with every store they write (claims, the re-run pace, the breaker's outcomes);
   * tests move it by hand.
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
  readonly settings: DeploymentSettings;
  readonly dynamo: EmbeddedDynamo;
  readonly ledger: Ledger;
  readonly queue: EmbeddedFifoQueue;
  readonly poller: QueuePoller;
  readonly reconciler: Reconciler;
  readonly queuedJobs: QueuedJobs;
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
  const webhookSecrets = webhookSecretsFrom(opts.env);
  if (webhookSecrets.length === 0) throw new ConfigError('WEBHOOK_SECRET is required');
  const credentials = credentialsFromEnv(opts.env, { allowToken: true });
  const log = opts.log;
  const metrics = new MemoryMetrics();

  // A token others could read is replaced, not narrowed: before the directory is tightened.
  const tokenFile = opts.adminTokenFile ?? (opts.dataDir ? adminTokenPath(opts.dataDir) : undefined);
  if (opts.adminToken === undefined && tokenFile && (await discardExposedAdminToken(tokenFile))) {
    log.warn('admin token file was readable by others: replaced by a new token', { file: tokenFile });
  }
  // Private before the ledger opens in it, and again once LevelDB has made its first files.
  if (opts.dataDir) await secureDataDir(opts.dataDir);
  const boot = nextBoot(opts.dataDir);
  const dynamo = await startDynamo({ table: TABLE_NAME, ...(opts.dataDir && { path: opts.dataDir }) });
  if (opts.dataDir) await secureDataDir(opts.dataDir);
  const ledger = openLedger(dynamo.client, TABLE_NAME, opts.clock);
  const eventsFile = opts.eventsFile ?? settings.events.file;
  const events = eventsFile ? new JsonLinesEvents(eventsFile) : undefined;
  const deadLetters = composeDeadLetters({
    ledger,
    owner: boot.owner,
    leaseMs: opts.leaseMs ?? DEFAULT_LEASE_MS,
    ...(events && { events }),
    log,
    metrics,
    now: opts.clock ?? Date.now,
  });
  const runQueue = await openRunQueue({
    name: 'reprise-runs.fifo',
    visibilityTimeoutMs: opts.visibilityTimeoutMs ?? 6 * 60_000,
    ...(opts.maxReceiveCount !== undefined && { maxReceiveCount: opts.maxReceiveCount }),
    ...((opts.queueClock ?? opts.clock) && { now: opts.queueClock ?? opts.clock }),
    durable: opts.dataDir ? dynamo : undefined,
    onError: (err) => log.error('queue journal write failed', { error: (err as Error).message }),
    // Only now, after MAX_RECEIVE_COUNT receives, is the message's attempt recorded abandoned.
    onDeadLetter: ({ record, reason }) =>
      void deadLetters
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
  const queue = runQueue.queue;
  // The queue's contract, as the intake, the reconciler and a replay send to it and a redrive moves its dead letters.
  const enqueue = embeddedQueue(queue);

  const signalSecrets = signalSecretsFrom(opts.env);
  for (const w of new Set(signalSecrets.map((s) => scopeWarning(s.scope)))) if (w) log.warn(w);
  const processes = localProcesses({
    settings,
    credentials,
    webhookSecrets,
    signalSecrets,
    signalToleranceMs: signalToleranceMsFrom(opts.env),
    ec2Signal: signalSettings(opts.env),
    ledger: withTestFaults(ledger, opts.env),
    queue,
    enqueue,
    owner: boot.owner,
    log,
    metrics,
    ...(events && { events }),
    ...(opts.clock && { now: opts.clock }),
    github: {
      ...(opts.retryBaseMs !== undefined && { retryBaseMs: opts.retryBaseMs }),
      ...(opts.requestTimeoutMs !== undefined && { requestTimeoutMs: opts.requestTimeoutMs }),
      ...(opts.writeSpacingMs !== undefined && { writeSpacingMs: opts.writeSpacingMs }),
    },
    ...(opts.leaseMs !== undefined && { leaseMs: opts.leaseMs }),
    ...(opts.deferUnitMs !== undefined && { deferUnitMs: opts.deferUnitMs }),
    ...(opts.onOutcome && { onOutcome: opts.onOutcome }),
  });
  const { reconciler } = processes;
  const poller = new QueuePoller(queue, processes.worker, {
    batchSize: MAX_RECEIVE_BATCH,
    concurrency: opts.workerConcurrency ?? fromEnv(opts.env, 'workerConcurrency'),
    onError: (err) => log.error('worker batch failed', { error: (err as Error).message }),
  });

  const { server, url } = await serveRoutes(
    {
      'POST /webhook': processes.intake,
      'POST /signals': processes.signalIntake,
      'GET /healthz': async () => ({
        statusCode: 200,
        body: JSON.stringify({ ok: true, github: settings.apiUrl, queue: queue.stats() }),
      }),
    },
    opts.port ?? 3000,
    opts.host ?? '127.0.0.1',
    (err) => log.error('request failed', { error: (err as Error).message }),
  );
  const publicPort = (server.address() as AddressInfo).port;
  const admin = await serveAdmin({
    ledger,
    replay: composeReplay({ attempts: ledger.attempts, queue: enqueue, log }),
    ec2Events: processes.ec2Signal,
    redrive: async () => {
      const released = await deadLetters.release((await enqueue.deadLetters()).map((r) => r.body));
      return { redriven: await enqueue.redrive(), released };
    },
    log,
    port: opts.adminPort ?? (opts.port === 0 ? 0 : publicPort + 1),
    ...(opts.adminToken !== undefined && { token: opts.adminToken }),
    ...(opts.adminTokenFile !== undefined && { tokenFile: opts.adminTokenFile }),
    ...(opts.dataDir !== undefined && { dataDir: opts.dataDir }),
  });
  if (opts.dataDir) {
    const swept = await recoverAfterRestart({
      ledger,
      queuedBodies: () => queue.bodies(),
      enqueue,
      client: processes.client,
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
  const sweeps = startReconcilerTimer(settings, reconciler, log);
  log.info('reprise local runtime listening', {
    url,
    webhook: `${url}/webhook`,
    admin: admin.url,
    ...(admin.tokenFile && { admin_token_file: admin.tokenFile }),
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
    adminUrl: admin.url,
    adminToken: admin.token,
    ...(admin.tokenFile && { adminTokenFile: admin.tokenFile }),
    settings,
    dynamo,
    ledger,
    queue,
    poller,
    reconciler,
    queuedJobs: ledger.queuedJobs,
    ...(events && { events }),
    metrics,
    server,
    adminServer: admin.server,
    close: async () => {
      await sweeps?.stop();
      await poller.stop();
      await Promise.all(
        [server, admin.server].map(
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
