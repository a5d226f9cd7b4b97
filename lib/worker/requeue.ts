import {
  decideRequeue,
  isMergeGroupRun,
  maxRequeues,
  parseMergeGroupBranch,
  type RequeueFacts,
  testedHead,
} from '../decide/merge-group.js';
import { RateLimitedError } from '../errors.js';
import { enqueuePullRequest, readMergeGroup } from '../github/merge-queue.js';
import type { RepoApi } from '../github/repo-api.js';
import type { DecisionKind, RepoConfig, RunMessage } from '../model.js';
import type { RequeueRef } from '../ledger/requeues.js';
import type { WorkerContext, WorkerStores } from './context.js';
import { SentRequestError } from './sent-request-error.js';

/** What putting a pull request back in the merge queue needs: the loop guard's store and the outputs. */
export interface RequeueContext {
  readonly stores: Pick<WorkerStores, 'requeues'>;
  readonly obs: Pick<WorkerContext['obs'], 'log' | 'metrics'>;
}

/**
 * What the worker does with a run that earned a re-run: the re-run (with a note when it is a
 * fallback), or a decision, `sent` when the merge-queue mutation left on the way to it.
 */
export type MergeQueueAction =
  | { readonly kind: 'rerun'; readonly note?: string }
  | { readonly kind: 'final'; readonly decision: DecisionKind; readonly reason: string; readonly sent: boolean };

/**
 * For a merge-group run that would be re-run: reads the pull request and the group's commit,
 * takes the loop guard's claim, and sends `enqueuePullRequest` once. Any other run, and every
 * fallback, goes on to the re-run. A fault of the mutation is thrown as a `SentRequestError`: from
 * then on the run attempt's claim stays, as after a re-run call.
 */
export async function actOnMergeGroup(
  msg: RunMessage,
  config: RepoConfig,
  api: RepoApi,
  ctx: RequeueContext,
  rerunReason: string,
): Promise<MergeQueueAction> {
  let facts: RequeueFacts = { message: msg, config, rerunReason };
  const ref = parseMergeGroupBranch(msg.headBranch);
  let claimed: RequeueRef | undefined;
  const base = {
    run_id: msg.runId,
    run_attempt: msg.runAttempt,
    repository: `${msg.repository.owner}/${msg.repository.name}`,
  };
  for (;;) {
    const step = decideRequeue(facts);
    switch (step.kind) {
      case 'rerun':
        if (step.note) ctx.obs.log.warn('merge queue: falling back to the re-run', { ...base, note: step.note });
        return step;
      case 'final':
        if (step.decision === 'requeued') ctx.obs.metrics.count('Requeue');
        return { ...step, sent: facts.answer !== undefined };
      case 'need':
        if (step.what === 'group') {
          facts = { ...facts, group: await readMergeGroup(api, msg.repository, ref!.pullRequest, msg.headSha) };
        } else {
          const tested = testedHead(facts.group!.parents ?? [])!;
          claimed = {
            repoId: msg.repository.id,
            pullRequest: ref!.pullRequest,
            headSha: tested,
            groupSha: msg.headSha,
          };
          facts = { ...facts, claim: await ctx.stores.requeues.claim(claimed, maxRequeues(config)) };
        }
        break;
      case 'enqueue': {
        try {
          facts = { ...facts, answer: await enqueuePullRequest(api, step.pullRequestId, step.expectedHeadOid) };
        } catch (err) {
          // Turned away before GitHub acted on it: the retry may take the claim again.
          if (err instanceof RateLimitedError && claimed) {
            await ctx.stores.requeues
              .release(claimed)
              .catch((e: Error) =>
                ctx.obs.log.warn('could not release the re-enqueue claim', { ...base, error: e.message }),
              );
          }
          throw new SentRequestError(err, false);
        }
        if (!facts.answer!.accepted) ctx.obs.metrics.count('RequeueRefused');
        break;
      }
    }
  }
}

/**
 * What the worker would do with a merge-group run that earned a re-run, read only (for
 * `reprise explain`): it reads the pull request and the group's commit, never the loop guard,
 * and sends nothing. Undefined for a run that is not a merge group.
 */
export async function previewMergeGroup(
  msg: RunMessage,
  config: RepoConfig,
  api: RepoApi,
  rerunReason: string,
): Promise<string | undefined> {
  if (!isMergeGroupRun(msg)) return undefined;
  let facts: RequeueFacts = { message: msg, config, rerunReason };
  const ref = parseMergeGroupBranch(msg.headBranch);
  for (;;) {
    const step = decideRequeue(facts);
    if (step.kind === 'rerun') return step.note ?? 'merge_queue: rerun: the failed jobs are re-run as for any run';
    if (step.kind === 'final') return `${step.decision}: ${step.reason}`;
    if (step.kind === 'need' && step.what === 'group') {
      facts = { ...facts, group: await readMergeGroup(api, msg.repository, ref!.pullRequest, msg.headSha) };
      continue;
    }
    const head = testedHead(facts.group?.parents ?? [])?.slice(0, 7) ?? '?';
    return (
      `would put pull request #${ref!.pullRequest} back in the merge queue with head ${head} ` +
      `(enqueuePullRequest; attempt_cap instead once that head was queued again max_requeues ${maxRequeues(config)} time(s))`
    );
  }
}
