/**
 * Bounds on the pattern work one decision may do. Annotations and log lines are written by
 * whoever's workflow ran, fork pull requests included: one run must not hold the worker that
 * also decides everyone else's runs.
 */
export interface ScanLimits {
  /** Characters of one annotation (title and message) or one log line that patterns read. */
  readonly textChars: number;
  /** Annotations of one job, or `##[error]` lines of one log window, that are examined. */
  readonly textsPerWindow: number;
  /** Milliseconds of pattern matching one window (a job's annotations, or those and its log) may take. */
  readonly windowMs: number;
  /** Milliseconds of pattern matching all windows of one decision may take together. */
  readonly decisionMs: number;
}

/** The bounds a decision works within unless a test or a setting gives others. */
export const SCAN_LIMITS: ScanLimits = {
  textChars: 4096,
  textsPerWindow: 1000,
  windowMs: 100,
  decisionMs: 1000,
};

/** Thrown inside a classification when its budget is spent; the classifier turns it into a verdict. */
export class BudgetSpent extends Error {
  override name = 'BudgetSpent';
}

/** The part of a text patterns read: the head, where GitHub's own sentences sit. */
export const scanned = (text: string, limits: ScanLimits = SCAN_LIMITS): string =>
  text.length > limits.textChars ? text.slice(0, limits.textChars) : text;

/**
 * The time one decision's classifications have spent matching, read from an injected clock
 * (tests pass a fake one). Without a clock only the size limits apply.
 */
export class ScanBudget {
  private spentMs = 0;

  constructor(
    readonly limits: ScanLimits = SCAN_LIMITS,
    private readonly now?: () => number,
  ) {}

  get spent(): number {
    return this.spentMs;
  }

  /** A meter for one window; its `check()` throws BudgetSpent once either limit is passed. */
  window(): ScanMeter {
    return new ScanMeter(this, this.now);
  }

  /** @internal */
  charge(ms: number): number {
    this.spentMs += ms;
    return this.spentMs;
  }
}

/** One window's meter (a job's annotations, or those and its log): counts texts and charges time to its budget. */
export class ScanMeter {
  private windowMs = 0;
  private last: number | undefined;

  constructor(
    private readonly budget: ScanBudget,
    private readonly now?: () => number,
  ) {
    this.last = now?.();
  }

  get limits(): ScanLimits {
    return this.budget.limits;
  }

  /** Called before each pattern runs: the time since the last call counts against both budgets. */
  check(): void {
    const limits = this.budget.limits;
    if (!this.now || this.last === undefined) return;
    const t = this.now();
    const delta = Math.max(0, t - this.last);
    this.last = t;
    this.windowMs += delta;
    const total = this.budget.charge(delta);
    if (total > limits.decisionMs) {
      throw new BudgetSpent(`pattern matching for this run passed its ${limits.decisionMs} ms budget`);
    }
    if (this.windowMs > limits.windowMs) {
      throw new BudgetSpent(`pattern matching for this job passed its ${limits.windowMs} ms budget`);
    }
  }

  /** Refuses a window with more texts than are examined: what is left unread could be a real failure. */
  count(texts: number, what: string): void {
    const cap = this.budget.limits.textsPerWindow;
    if (texts > cap) throw new BudgetSpent(`${texts} ${what}, more than the ${cap} examined`);
  }
}
