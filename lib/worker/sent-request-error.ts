/**
 * An error once a request had been sent to GitHub, so the caller knows what it may undo: GitHub may
 * have acted on it, unless it was turned away (a rate limit, the `cause`). `inFlight` when the
 * request was a re-run call whose outcome is unknown; the merge-queue mutation only counts as sent.
 */
export class SentRequestError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly inFlight: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SentRequestError';
  }
}
