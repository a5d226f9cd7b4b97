/**
 * A clock a test moves by hand: the simulator's latency passes on it (`wait`), the GitHub
 * client's request timeouts fire on it (`timeout`), and a Lambda invocation's time left is read
 * from it. Nothing waits on the wall clock.
 */
export class VirtualClock {
  private t = 0;
  private timers: { readonly at: number; readonly fire: () => void }[] = [];

  readonly now = (): number => this.t;

  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fire();
  }

  /** An AbortSignal that aborts once this clock has moved `ms` past now, as AbortSignal.timeout does on the wall clock. */
  readonly timeout = (ms: number): AbortSignal => {
    const c = new AbortController();
    this.timers.push({ at: this.t + ms, fire: () => c.abort(new DOMException('timed out', 'TimeoutError')) });
    return c.signal;
  };

  /** A Lambda context whose time left runs out `budgetMs` from now on this clock. */
  invocation(budgetMs: number): { readonly deadline: number; getRemainingTimeInMillis(): number } {
    const deadline = this.t + budgetMs;
    return { deadline, getRemainingTimeInMillis: () => deadline - this.t };
  }
}
