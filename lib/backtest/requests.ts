/**
 * Every request a backtest sends to GitHub's API goes through one fetch that counts it by kind
 * and refuses the one past `--max-requests`: the budget is never exceeded, and the refusal is
 * how the backtest knows to stop.
 */

export const REQUEST_KINDS = [
  'installation',
  'token',
  'repositories',
  'run listings',
  'attempts',
  'jobs',
  'annotations',
  'logs',
  'configuration',
  'other',
] as const;
/** One of REQUEST_KINDS: what a request to GitHub was for, in the report's count of them. */
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** The refusal of the request past `--max-requests`: nothing was sent; the backtest stops where it is. */
export class RequestBudgetSpent extends Error {
  override name = 'RequestBudgetSpent';
  constructor(readonly max: number) {
    super(`the request budget (--max-requests ${max}) is spent`);
  }
}

/** True when the error, or one it wraps, is the budget refusing a request. */
export function isBudgetSpent(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RequestBudgetSpent) return true;
  }
  return false;
}

const KINDS: readonly [RegExp, RequestKind][] = [
  [/\/app\/installations\/\d+\/access_tokens$/, 'token'],
  [/\/app\/installations$|\/repos\/[^/]+\/[^/]+\/installation$/, 'installation'],
  [/\/installation\/repositories$/, 'repositories'],
  [/\/actions\/runs$/, 'run listings'],
  [/\/actions\/runs\/\d+(\/attempts\/\d+)?$/, 'attempts'],
  [/\/jobs$/, 'jobs'],
  [/\/graphql$|\/check-runs\/\d+\/annotations$/, 'annotations'],
  [/\/actions\/jobs\/\d+\/logs$/, 'logs'],
  [/\/contents\//, 'configuration'],
];

/** What a request was for, from its URL's path; `other` when no kind matches. */
export function kindOf(url: string): RequestKind {
  const path = new URL(url).pathname.replace(/\/+$/, '');
  return KINDS.find(([re]) => re.test(path))?.[1] ?? 'other';
}

/**
 * A fetch that counts every request by kind and refuses the one past the budget: the backtest's
 * only way to GitHub, so the budget is never exceeded.
 */
export class RequestMeter {
  private readonly counts = new Map<RequestKind, number>();
  private sent = 0;
  private refusals = 0;

  constructor(
    private readonly max: number | undefined,
    private readonly inner: typeof fetch = fetch,
  ) {}

  get total(): number {
    return this.sent;
  }

  /** Requests refused for the budget: an answer read while one was refused is not whole. */
  get refused(): number {
    return this.refusals;
  }

  /** Requests the budget still allows; Infinity without one. */
  get remaining(): number {
    return this.max === undefined ? Infinity : Math.max(0, this.max - this.sent);
  }

  get spent(): boolean {
    return this.max !== undefined && this.sent >= this.max;
  }

  byKind(): Record<RequestKind, number> {
    return Object.fromEntries(REQUEST_KINDS.map((k) => [k, this.counts.get(k) ?? 0])) as Record<RequestKind, number>;
  }

  /** The fetch every client of the backtest is given. */
  readonly fetch: typeof fetch = (input, init) => {
    if (this.spent) {
      this.refusals++;
      return Promise.reject(new RequestBudgetSpent(this.max ?? 0));
    }
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const kind = kindOf(url);
    this.sent++;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    return this.inner(input, init);
  };
}

/** Thrown where the request budget ends the backtest: it returns what it examined so far. */
export class Stopped extends Error {}

/** A spent request budget ends the backtest where it is; any other fault is the caller's. */
export async function guardWith<T>(refused: (() => number) | undefined, work: () => Promise<T>): Promise<T> {
  const before = refused?.() ?? 0;
  let value: T;
  try {
    value = await work();
  } catch (err) {
    if (isBudgetSpent(err)) throw new Stopped();
    throw err;
  }
  if ((refused?.() ?? 0) !== before) throw new Stopped();
  return value;
}
