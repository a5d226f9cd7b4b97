/**
 * The errors reprise tells apart. A fault is either permanent (a retry can never fix it: the
 * message is acknowledged with a reason), transient (a retry may fix it: the message comes back
 * after a backoff) or rate-limited (a retry will work after a known delay). Callers check them
 * with `instanceof`, never by their text.
 */

/** A fault no retry can fix. */
export class PermanentError extends Error {
  override name = 'PermanentError';
}

/** A fault a later retry may fix. */
export class TransientError extends Error {
  override name = 'TransientError';
}

/** A rate limit longer than the caller should wait in-process: retry after `delayMs`. */
export class RateLimitedError extends TransientError {
  override name = 'RateLimitedError';
  constructor(
    readonly delayMs: number,
    options?: { cause?: unknown },
  ) {
    super(`GitHub rate limit: retry after ${Math.ceil(delayMs / 1000)}s`, options);
  }

  /** The delay in whole seconds, at least one. */
  get delaySeconds(): number {
    return Math.max(1, Math.ceil(this.delayMs / 1000));
  }
}

/** A setting that cannot be used; the message names the setting at fault. */
export class ConfigError extends PermanentError {
  override name = 'ConfigError';
}

/** A queue message or webhook payload of the wrong shape; the message names the field at fault. */
export class ShapeError extends PermanentError {
  override name = 'ShapeError';
}

/** An `extra_patterns` line that is not a regular expression. */
export class PatternError extends ConfigError {
  override name = 'PatternError';
  constructor(
    readonly line: number,
    readonly source: string,
    why: string,
  ) {
    super(`extra_patterns line ${line}: ${why}`);
  }
}

/** GitHub has no such thing (or the credentials cannot see it). */
export class NotFoundError extends PermanentError {
  override name = 'NotFoundError';
}

/** The installation a message names is unknown to GitHub, or the message named none. */
export class UnknownInstallationError extends PermanentError {
  override name = 'UnknownInstallationError';
}

/** A listing shorter than GitHub's own total: deciding on part of it would be wrong. */
export class IncompleteListingError extends TransientError {
  override name = 'IncompleteListingError';
}

/** The log host failed in a way a retry may fix. */
export class LogHostError extends TransientError {
  override name = 'LogHostError';
}

/** A GitHub request (a log read too) that did not answer within its timeout: a retry may find GitHub faster. */
export class RequestTimeoutError extends TransientError {
  override name = 'RequestTimeoutError';
}
