/**
 * What `startRuntime` takes and gives, grouped by what each option configures. The options stay one
 * flat object for the callers (`npm start`, the tests, the demo, the bench); each part of the
 * runtime (runtime.ts) reads only its own group.
 */
import type { Server } from 'node:http';
import type { Reconciler } from '../compose/reconciler.js';
import type { RunOutcome } from '../compose/worker.js';
import type { DeploymentSettings } from '../config/env.js';
import type { Env } from '../config/environment.js';
import type { JsonLinesEvents } from '../events/jsonl-file.js';
import type { Ledger } from '../ledger/ledger.js';
import type { QueuedJobs } from '../ledger/queued-jobs.js';
import type { RunMessage } from '../model.js';
import type { MemoryMetrics } from '../obs/memory-metrics.js';
import type { Log } from '../obs/types.js';
import type { EmbeddedFifoQueue, QueuePoller } from '../queue/open-embedded.js';
import type { EmbeddedDynamo } from './dynamo.js';

/** Where the runtime reads its configuration and writes its logs. */
export interface BaseOptions {
  readonly env: Env;
  readonly log: Log;
  /**
   * The clock of the queue (unless `queueClock` is given) and of the intake, the worker and the
   * reconciler with every store they write (claims, the re-run pace, the breaker's outcomes);
   * tests move it by hand.
   */
  readonly clock?: () => number;
}

/** The two ports: the public one GitHub posts to, and the operator's on 127.0.0.1. */
export interface PortOptions {
  readonly port?: number;
  readonly host?: string;
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
}

/** What is kept, and where: the ledger, the queue's journal, the events file. */
export interface StoreOptions {
  /** Keep the ledger and the queue on disk here; in memory (nothing kept across restarts) when absent. */
  readonly dataDir?: string;
  /** Append every event to this JSON-lines file (overrides `EVENTS_FILE`). */
  readonly eventsFile?: string;
}

/** The embedded queue's semantics, as an SQS queue's attributes set them. */
export interface LocalQueueOptions {
  readonly visibilityTimeoutMs?: number;
  readonly maxReceiveCount?: number;
  /** The queue's clock (visibility timeouts, deduplication window); tests move it by hand. */
  readonly queueClock?: () => number;
}

/** The GitHub client's pace and patience. */
export interface GitHubOptions {
  /** Spacing of this process's REST writes per installation, in ms; WRITE_SPACING_MS when absent. */
  readonly writeSpacingMs?: number;
  /** Base of the GitHub client's retry backoff, in ms. */
  readonly retryBaseMs?: number;
  /** A GitHub request's timeout, in ms; GITHUB_REQUEST_TIMEOUT_MS when absent. */
  readonly requestTimeoutMs?: number;
}

/** The worker: how many loops, how long a claim lasts, how a deferral counts, who hears each outcome. */
export interface WorkerOptions {
  /** Worker loops receiving from the queue; WORKER_CONCURRENCY when absent. */
  readonly workerConcurrency?: number;
  /** How long a worker's claim on a run attempt lasts before the reconciler may take it back. */
  readonly leaseMs?: number;
  /** Milliseconds per second of a worker's deferral (rate limit, backoff); tests shorten it. */
  readonly deferUnitMs?: number;
  readonly onOutcome?: (message: RunMessage, outcome: RunOutcome) => void;
}

/** Everything `startRuntime` takes: one flat object, typed by group. */
export type RuntimeOptions = BaseOptions &
  PortOptions &
  StoreOptions &
  LocalQueueOptions &
  GitHubOptions &
  WorkerOptions;

/** The running local runtime: its addresses, its parts for tests to read, and how to stop it. */
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
  /** The embedded queue itself, for tests to read and move; the processes see it only through its contract. */
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
