/**
 * The checks of `reprise status` that read the ledger beside the decisions: the operator's
 * pauses, and the last runner signal seen (the drill's proof that signals arrive).
 */
import { describePause } from '../ledger/pauses.js';
import { isoTime } from './io.js';
import type { LedgerSource } from './ledger-source.js';
import type { Check } from './status-checks.js';

const NO_SOURCE = 'pass --stack, --table or --local to read it from the ledger';

/** A pause in force is a warning, each named with who, why and until when. */
export async function checkPauses(source: LedgerSource | undefined): Promise<Check> {
  if (!source) return { name: 'pause', status: 'skip', detail: NO_SOURCE };
  const held = await source.pauses.list();
  if (held.length === 0) return { name: 'pause', status: 'ok', detail: 'not paused: re-runs go ahead' };
  return {
    name: 'pause',
    status: 'warn',
    detail: held.map(describePause).join('\n'),
    fix: 'reprise resume [OWNER[/REPO]], then reprise replay each run decided paused (reprise decisions lists them)',
  };
}

/** How far back the last signal is looked for: the signal TTL's default. */
export const SIGNAL_LOOKBACK_MS = 7 * 24 * 3_600_000;

/** The newest runner signal of the last week: its kind, runner and source, or that none arrived. */
export async function checkLastSignal(source: LedgerSource | undefined, now: number): Promise<Check> {
  if (!source) return { name: 'last signal', status: 'skip', detail: NO_SOURCE };
  const { signals } = await source.facts(now - SIGNAL_LOOKBACK_MS);
  const last = signals.at(-1);
  if (!last) {
    return {
      name: 'last signal',
      status: 'ok',
      detail: `no runner signal in the last 7 days in ${source.where} (the spot drill in docs/operations.md sends one)`,
    };
  }
  const instance = last.instanceId ? ` (instance ${last.instanceId})` : '';
  return {
    name: 'last signal',
    status: 'ok',
    detail: `${isoTime(Date.parse(last.eventTime))} ${last.kind} for runner ${last.runnerKey}${instance} from ${last.source}`,
  };
}
