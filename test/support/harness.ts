import type { SQSEvent } from 'aws-lambda';
import { generateKeyPairSync } from 'node:crypto';
import type { RepoConfig } from '../../lib/config/repo-config.js';
import { BUILT_IN_DEFAULTS } from '../../lib/config/repo-config.js';
import { createClientFactory } from '../../lib/github/client.js';
import { RepoConfigSource } from '../../lib/github/repo-config-source.js';
import { Ledger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue, embeddedRunQueue } from '../../lib/local/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { MemoryMetrics } from '../../lib/obs/ports.js';
import { DEFAULT_SIGNAL_WINDOW, SignalStore } from '../../lib/signals/signal-store.js';
import { messageGroupId, runMessageFromPayload } from '../../lib/webhook/run-message.js';
import type { WorkerDeps } from '../../lib/worker/decide-run.js';
import { createWorkerHandler, type WorkerHandlerDeps } from '../../lib/worker/handler.js';
import { GitHubSimulator } from '../sim/index.js';
import { MemoryLog } from './memory-log.js';
import { workflowRunPayload } from './webhooks.js';

export const INSTALLATION_ID = 4242;
export const TABLE = 'reprise-test';

let key: string | undefined;
/** A real RSA key, so auth-app signs real JWTs the simulator exchanges for tokens. */
export function testPrivateKey(): string {
  key ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  return key;
}

export interface Harness {
  readonly sim: GitHubSimulator;
  readonly dynamo: EmbeddedDynamo;
  readonly ledger: Ledger;
  readonly signals: SignalStore;
  readonly log: MemoryLog;
  readonly metrics: MemoryMetrics;
  deps(over?: Omit<Partial<WorkerHandlerDeps>, 'defaults'> & { defaults?: Partial<RepoConfig> }): WorkerHandlerDeps;
  worker(
    over?: Omit<Partial<WorkerHandlerDeps>, 'defaults'> & { defaults?: Partial<RepoConfig> },
  ): (e: SQSEvent) => ReturnType<ReturnType<typeof createWorkerHandler>>;
  message(runId: number, deliveryId?: string): RunMessage;
  /** Real SQS records, made by sending through the embedded FIFO queue and receiving them. */
  sqsEvent(messages: readonly RunMessage[]): SQSEvent;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const sim = await GitHubSimulator.start();
  sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
  const dynamo = await startDynamo({ table: TABLE });
  const ledger = new Ledger(dynamo.client, TABLE);
  const signals = new SignalStore(dynamo.client, TABLE, 86_400);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  let seq = 0;
  const client = createClientFactory({
    apiUrl: sim.url,
    credentials: { kind: 'app', appId: '1234567', privateKey: testPrivateKey() },
    log,
    retryBaseMs: 1,
  });
  const deps = (
    over: Omit<Partial<WorkerHandlerDeps>, 'defaults'> & { defaults?: Partial<RepoConfig> } = {},
  ): WorkerHandlerDeps => {
    const { defaults, ...rest } = over;
    const base: WorkerDeps = {
      ledger,
      client,
      graphqlUrl: sim.graphqlUrl,
      configSource: new RepoConfigSource(),
      defaults: { ...BUILT_IN_DEFAULTS, ...defaults },
      signals,
      signalWindow: DEFAULT_SIGNAL_WINDOW,
      logHosts: ['127.0.0.1'],
      logWindowBytes: 8 * 1024 * 1024,
      log,
      metrics,
      owner: `worker-${++seq}`,
      leaseMs: 60_000,
    };
    return { ...base, ...rest };
  };
  return {
    sim,
    dynamo,
    ledger,
    signals,
    log,
    metrics,
    deps,
    worker: (over) => createWorkerHandler(deps(over)),
    message: (runId, deliveryId = `delivery-${runId}-${++seq}`) =>
      runMessageFromPayload(workflowRunPayload(sim, runId, INSTALLATION_ID), deliveryId),
    sqsEvent: (messages) => {
      const q = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo' });
      // The embedded queue takes a message before its send returns.
      const runs = embeddedRunQueue(q);
      for (const m of messages) void runs.send(m, messageGroupId(m), m.deliveryId);
      const records = [];
      for (let r = q.receive(10); r.length > 0; r = q.receive(10)) records.push(...r);
      return { Records: records };
    },
    close: async () => {
      await sim.close();
      await dynamo.close();
    },
  };
}
