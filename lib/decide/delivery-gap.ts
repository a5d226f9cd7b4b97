/**
 * Whether the intake may have missed a newer run's delivery. The record of a branch's newest run
 * is written from every `workflow_run` delivery; GitHub does not retry one that failed, so a run
 * the record calls the branch head is the head only if no `workflow_run` delivery of its
 * installation (and repository) failed since the run started. GitHub's delivery log of the App's
 * webhook says which failed. Pure: one page of the log in, what it shows out.
 */

/** A delivery attempt as the log lists it (newest first). */
export interface LoggedDelivery {
  readonly guid: string;
  readonly delivered_at: string;
  readonly status_code: number;
  readonly event: string;
  readonly installation_id?: number | null;
  readonly repository_id?: number | null;
}

/** Whose deliveries count, and since when (the run's `createdAt`, in ms). */
export interface GapScope {
  /** Null for a delivery that named none: every installation's deliveries count. */
  readonly installationId: number | null;
  readonly repositoryId: number;
  readonly sinceMs: number;
}

/**
 * What the delivery log says of the time between the run's start and the decision, and how many
 * requests the App made to read it (`appRequests`: its JWT, never the installation's rate limit,
 * so never among a decision's `requests`).
 */
export type DeliveryGap = GapReading & { readonly appRequests?: number };

type GapReading =
  /** No `workflow_run` delivery of the scope failed since the run started: the record decides. */
  | { readonly kind: 'none' }
  /** One failed (and no later attempt of it succeeded): a listing decides. */
  | { readonly kind: 'missed'; readonly guid: string; readonly statusCode: number; readonly deliveredAt: string }
  /** The log could not be read, or not back to the run's start: a listing decides. */
  | { readonly kind: 'unread'; readonly reason: string }
  /** No log to read (GITHUB_TOKEN credentials, no App): the record decides, as it always did. */
  | { readonly kind: 'no_log' };

/** GitHub's delivery log: a 2xx is delivered; anything else, 0 (a timeout) included, failed. */
export const deliveryFailed = (statusCode: number): boolean => !(statusCode >= 200 && statusCode < 300);

/** A scope field the log leaves empty (null) matches: the safe direction. */
const inScope = (d: LoggedDelivery, scope: GapScope): boolean =>
  (d.installation_id == null || scope.installationId === null || d.installation_id === scope.installationId) &&
  (d.repository_id == null || d.repository_id === scope.repositoryId);

/** What one page of GitHub's delivery log says of a run: a failed delivery in scope, and whether the page reached the run's start. */
export interface PageReading {
  /** The first failed delivery in scope since the run started, if any. */
  readonly missed?: LoggedDelivery;
  /** The page reached a delivery older than the run: older pages cannot matter. */
  readonly reachedStart: boolean;
}

/**
 * Reads one page of the log (newest first). `delivered` holds the guids already seen to succeed
 * on a later attempt (a redelivery made good); the page's successes are added to it.
 */
export function readPage(page: readonly LoggedDelivery[], scope: GapScope, delivered: Set<string>): PageReading {
  for (const d of page) {
    if (Date.parse(d.delivered_at) < scope.sinceMs) return { reachedStart: true };
    if (!deliveryFailed(d.status_code)) {
      delivered.add(d.guid);
      continue;
    }
    if (d.event === 'workflow_run' && inScope(d, scope) && !delivered.has(d.guid))
      return { missed: d, reachedStart: false };
  }
  return { reachedStart: false };
}

/** Whether the record of the branch's newest run may decide, given what the log shows. */
export const recordMayDecide = (gap: DeliveryGap): boolean => gap.kind === 'none' || gap.kind === 'no_log';

/** The reader where there is no log (GITHUB_TOKEN credentials). */
export const noDeliveryLog = (): Promise<DeliveryGap> => Promise.resolve({ kind: 'no_log' });
