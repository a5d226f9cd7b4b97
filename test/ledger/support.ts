import { afterAll, beforeAll } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';

/** A run message of acme/web (repository 9, installation 7) as the ledger's tests store it. */
export const ledgerMessage = (runId: number, over: Partial<RunMessage> = {}): RunMessage => ({
  v: 1,
  deliveryId: `d-${runId}`,
  installationId: 7,
  repository: { id: 9, owner: 'acme', name: 'web' },
  runId,
  runAttempt: 1,
  workflow: { id: 1, name: 'ci', path: null },
  event: 'push',
  headSha: 'abc',
  headBranch: 'main',
  conclusion: 'failure',
  pullRequests: [],
  ...over,
});

/** The ledger a test file works on: dynalite started before its tests, closed after them. */
export interface FileLedger {
  ledger: Ledger;
  dynamo: EmbeddedDynamo;
}

/** Starts dynalite with `table` for the calling test file, the ledger on `clock`; read the fields inside tests. */
export function ledgerForFile(table: string, clock: () => number): FileLedger {
  const held = {} as FileLedger;
  beforeAll(async () => {
    held.dynamo = await startDynamo({ table });
    held.ledger = openLedger(held.dynamo.client, table, clock);
  });
  afterAll(async () => held.dynamo?.close());
  return held;
}

/** A spot warning recorded for `runnerKey` at `at`, as the EC2 signal function writes it. */
export const spotSignal = (runnerKey: string, at: number, eventId = `e-${runnerKey}-${at}`) => ({
  runnerKey,
  kind: 'spot-interruption' as const,
  eventTime: new Date(at).toISOString(),
  eventId,
  source: 'aws.ec2',
});
