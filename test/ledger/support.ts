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
