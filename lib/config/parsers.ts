import { ConfigError } from '../errors.js';

/**
 * The value parsers every setting is read through. Each reads a value two ways: from text (the
 * environment, the command line, a context key) or typed (a repository file's YAML, a prop);
 * `typed` refuses the text forms (`"yes"`, `"3"`, `"a,b"`) a YAML file has no need of.
 */

export type Value = number | boolean | string | readonly string[];

/** Reads one setting's value, from text or typed, and throws a ConfigError naming `where` when it is wrong. */
export interface Parser<V extends Value> {
  /** Text or typed: a string from the environment, or a typed value. */
  (raw: unknown, where: string): V;
  /** Typed only: the form a repository file gives. */
  readonly typed: (raw: unknown, where: string) => V;
}

const show = (raw: unknown): string => (typeof raw === 'string' ? JSON.stringify(raw) : String(JSON.stringify(raw)));

/** Throws the one error every parser throws: where, what was expected, what was given. */
export const fail = (where: string, expected: string, raw: unknown): never => {
  throw new ConfigError(`${where}: expected ${expected}, got ${show(raw)}`);
};

const parser = <V extends Value>(
  fromText: (raw: unknown, where: string) => V,
  typed: (raw: unknown, where: string) => V = fromText,
): Parser<V> => Object.assign(fromText, { typed });

const number = (raw: unknown): number =>
  typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;

/** A whole number in [min, max]; `why` says where a bound comes from. */
export function int(min: number, max = Number.MAX_SAFE_INTEGER, why = '', unit = ''): Parser<number> {
  const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
  const expected = `a whole number${unit ? ` of ${unit}` : ''} ${range}${why ? ` (${why})` : ''}`;
  const check = (n: number, raw: unknown, where: string): number =>
    !Number.isInteger(n) || n < min || n > max ? fail(where, expected, raw) : n;
  return parser(
    (raw, where) => check(number(raw), raw, where),
    (raw, where) => check(typeof raw === 'number' ? raw : NaN, raw, where),
  );
}

/** A percentage above 0 and at most 100 (fractions allowed). */
export const percent: Parser<number> = parser((raw, where) => {
  const n = number(raw);
  if (!(n > 0 && n <= 100)) return fail(where, 'a percentage above 0 and at most 100', raw);
  return n;
});

/** `true`/`false`; from text also `1`/`0` and `yes`/`no`. */
export const bool: Parser<boolean> = parser(
  (raw, where) => {
    if (typeof raw === 'boolean') return raw;
    const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (['true', '1', 'yes'].includes(s)) return true;
    if (['false', '0', 'no'].includes(s)) return false;
    return fail(where, 'true or false', raw);
  },
  (raw, where) => (typeof raw === 'boolean' ? raw : fail(where, 'true or false', raw)),
);

/** How {@link oneOf} reads its text: a normalization, and the values a typed boolean stands for. */
export interface OneOfOptions<T extends string> {
  readonly normalize?: (s: string) => string;
  /** The values a typed `false` and `true` stand for (a YAML file's `stale_check: false`). */
  readonly booleans?: readonly [whenFalse: T, whenTrue: T];
}

/** One of `values`; typed, the value exactly as written, or a boolean where `booleans` names its values. */
export function oneOf<T extends string>(values: readonly T[], opts: OneOfOptions<T> = {}): Parser<T> {
  const normalize = opts.normalize ?? ((s: string) => s);
  const b = opts.booleans;
  const typedValues = b ? [...b, ...values.filter((v) => !b.includes(v))] : values;
  const typedExpected = `one of ${typedValues.join(', ')}${b ? ` (false: ${b[0]}, true: ${b[1]})` : ''}`;
  return parser(
    (raw, where) => {
      const s = typeof raw === 'string' ? normalize(raw.trim()) : undefined;
      if (s === undefined || !values.includes(s as T)) return fail(where, `one of ${values.join(', ')}`, raw);
      return s as T;
    },
    (raw, where) => {
      if (b && typeof raw === 'boolean') return raw ? b[1] : b[0];
      return values.includes(raw as T) ? (raw as T) : fail(where, typedExpected, raw);
    },
  );
}

/** What {@link list} checks: each item's form, a non-empty list, a block of lines. */
export interface ListOptions {
  readonly item?: { readonly test: RegExp; readonly what: string };
  /** An empty list is refused. */
  readonly nonEmpty?: boolean;
  /** Typed, a block of lines is a list too (a YAML `|` block), split but kept line for line. */
  readonly block?: boolean;
}

/**
 * A list: a JSON array, or a string split on `separator`, blank items dropped. Typed, an array of
 * strings as written (a block of lines too, with `block`).
 */
export function list(separator: RegExp, opts: ListOptions = {}): Parser<string[]> {
  const { item, nonEmpty = false, block = false } = opts;
  const check = (out: string[], raw: unknown, where: string): string[] => {
    const bad = item && out.find((s) => !item.test.test(s));
    if (bad !== undefined && item) throw new ConfigError(`${where}: expected ${item.what}, got ${show(bad)}`);
    // An empty allow-list would read as "unset", which allows everything: refused instead.
    if (nonEmpty && out.length === 0) return fail(where, 'at least one item', raw);
    return out;
  };
  const strings = (raw: unknown): raw is string[] => Array.isArray(raw) && raw.every((x) => typeof x === 'string');
  const expected = block ? 'a block of lines or a list of strings' : 'a list of strings';
  return parser(
    (raw, where) => {
      let items: string[];
      if (strings(raw)) items = raw;
      else if (typeof raw === 'string') items = raw.split(separator);
      else return fail(where, expected, raw);
      return check(items.map((s) => s.trim()).filter(Boolean), raw, where);
    },
    (raw, where) => {
      if (strings(raw)) return check([...raw], raw, where);
      if (block && typeof raw === 'string') return check(raw.split(/\r?\n/), raw, where);
      return fail(where, expected, raw);
    },
  );
}

/** An http(s) URL without trailing slashes. */
export const url: Parser<string> = parser((raw, where) => {
  if (typeof raw !== 'string') return fail(where, 'an http(s) URL', raw);
  try {
    const u = new URL(raw.trim());
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    return fail(where, 'an http(s) URL', raw);
  }
  return raw.trim().replace(/\/+$/, '');
});

/** Any non-empty text, trimmed. */
export const text: Parser<string> = parser((raw, where) => {
  if (typeof raw !== 'string' || raw.trim() === '') return fail(where, 'a non-empty text', raw);
  return raw.trim();
});

/** Regular expressions, one per line; one that does not compile is refused with the engine's reason. */
export const regexpLines: Parser<string[]> = parser((raw, where) => {
  const patterns = list(/\n/)(raw, where);
  for (const p of patterns) {
    try {
      new RegExp(p);
    } catch (err) {
      throw new ConfigError(`${where}: ${(err as Error).message}`);
    }
  }
  return patterns;
});

/**
 * A JSON list of objects (text or typed), kept as its JSON text, the form an environment holds:
 * the fields of each entry are checked by the one reader of the setting.
 */
export const jsonObjectList: Parser<string> = parser((raw, where) => {
  let doc: unknown = raw;
  if (typeof raw === 'string') {
    try {
      doc = JSON.parse(raw);
    } catch {
      return fail(where, 'a JSON list of objects', raw);
    }
  }
  const objects = Array.isArray(doc) && doc.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e));
  return objects ? JSON.stringify(doc) : fail(where, 'a JSON list of objects', raw);
});

/** An EventBridge bus: its name, or its ARN (a bus of another account). */
export const eventBus: Parser<string> = parser((raw, where) => {
  const v = typeof raw === 'string' ? raw.trim() : '';
  if (!/^(arn:[\w-]+:events:[\w-]+:\d{12}:event-bus\/)?[\w./-]{1,256}$/.test(v)) {
    return fail(where, 'an event bus name or ARN', raw);
  }
  return v;
});

/** An e-mail address (one `@`, no spaces), trimmed. */
export const email: Parser<string> = parser((raw, where) => {
  if (typeof raw !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(raw.trim())) return fail(where, 'an e-mail address', raw);
  return raw.trim();
});

/** Retention periods CloudWatch Logs accepts, in days (9999: never expire). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653, 9999,
] as const;

/** A log retention CloudWatch Logs accepts, in days. */
export const retention: Parser<number> = parser((raw, where) => {
  const n = int(1)(raw, where);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(n)) {
    return fail(where, `a CloudWatch retention in days (${LOG_RETENTION_DAYS.join(', ')})`, raw);
  }
  return n;
});
