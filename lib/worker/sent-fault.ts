/**
 * A fault once a request had left for GitHub, so the caller knows what it may undo: GitHub may
 * have acted on it, unless it was turned away (a rate limit, the `cause`). `inFlight` when the
 * request was a re-run call whose outcome is unknown; the merge-queue mutation only counts as sent.
 */
export class SentFault extends Error {
  constructor(
    override readonly cause: unknown,
    readonly inFlight: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SentFault';
  }
}
