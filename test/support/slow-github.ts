import { createClientFactory } from '../../lib/github/client.js';
import { APP_ID, type Harness, testPrivateKey } from './harness.js';
import type { VirtualClock } from './virtual-clock.js';

/** Clients whose request timeouts fire on `clock`, and the simulated GitHub's latency passing on it too. */
export function slowGitHub(h: Harness, clock: VirtualClock) {
  h.sim.latencyWait = async (ms) => clock.advance(ms);
  return createClientFactory({
    apiUrl: h.settings.apiUrl,
    credentials: { kind: 'app', appId: APP_ID, privateKey: testPrivateKey() },
    log: h.log,
    retryBaseMs: 1,
    timeoutSignal: clock.timeout,
  });
}
