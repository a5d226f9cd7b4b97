import { describePause } from '../ledger/pauses.js';
import type { Decision, RunMessage } from '../model.js';
import type { WorkerContext } from './context.js';

/**
 * The `paused` decision for a run that would be re-run while the operator's pause holds its
 * repository, or undefined. The reason says who paused, why and until when, and how to send
 * the run again once resumed.
 */
export async function operatorPause(
  msg: RunMessage,
  ctx: Pick<WorkerContext, 'stores'>,
): Promise<Decision | undefined> {
  const pause = await ctx.stores.pauses.active(msg.repository.owner, msg.repository.name);
  if (!pause) return undefined;
  const ref = `${msg.repository.owner}/${msg.repository.name}#${msg.runId}@${msg.runAttempt}`;
  return {
    decision: 'paused',
    reason: `would re-run, but ${describePause(pause)} (after "reprise resume", "reprise replay ${ref}" sends it again)`,
  };
}
