import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { stripControls } from '../util/inert-text.js';

/** Where a command writes its output: stdout, stderr, or a test's buffer. */
export interface Writer {
  write(chunk: string): unknown;
}

/** An AWS SDK v3 client as the CLI uses it: `send(command)`. Tests pass in-memory fakes. */
export interface CommandSender {
  send(command: object): Promise<unknown>;
}

/** AWS clients, injectable; absent ones are built with the SDK's default credentials and region. */
export interface AwsClients {
  readonly cloudFormation?: CommandSender;
  readonly secretsManager?: CommandSender;
  readonly sqs?: CommandSender;
  readonly dynamodb?: DynamoDBClient;
}

/** Everything a command touches outside itself, so tests run it in-process. */
export interface CliIo {
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof fetch;
  readonly aws?: AwsClients;
  /** The clock periods are measured back from; tests set it. */
  readonly now?: () => number;
  /** The `.env` read when no `--dotenv` names one: reprise's own checkout's (see dotenv.ts). */
  readonly dotenv?: string;
}

/** One `reprise` command: its arguments and streams in, its exit code out. */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** An ordinary failure: printed as one clear message, exit code 1 (2 for usage). */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A command used wrongly (a missing or bad flag): exit code 2, with a pointer to its help. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, 2);
  }
}

/** One line to a terminal. Names and reasons come from GitHub and workflow authors: no control character or escape sequence in them reaches the terminal. */
export const println = (w: Writer, line = ''): void => {
  w.write(`${stripControls(line)}\n`);
};

/** Prints a command's result as indented JSON, for `--json`. */
export const printJson = (io: CliIo, value: unknown): void => println(io.stdout, JSON.stringify(value, null, 2));

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--json` and `--help` on every command. */
const COMMON: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** Options Node itself reads, even after the script's name: Node acts on them before reprise runs. */
const NODE_OWN = /^--env-file(-if-exists)?(=|$)/;

/** The refusal of a Node option among a command's arguments, or undefined; `dotenv` names the file option. */
export function nodeOwnOption(argv: readonly string[], dotenv: boolean): string | undefined {
  const flag = argv.find((a) => NODE_OWN.test(a))?.split('=')[0];
  if (!flag) return undefined;
  const instead = dotenv ? 'use --dotenv PATH for the file to write' : 'use --dotenv FILE for the file to read';
  return `${flag} is Node's own option (Node reads that file, or exits when it is missing, before reprise runs); ${instead}`;
}

/** What cannot be `--local`'s URL: nothing, another option, or a run (`owner/repo#id`). */
const NOT_A_URL = /^$|^-|#\d/;

/**
 * `--local` without a URL after it becomes `--local=`: the empty value `localUrl` reads as the
 * runtime's default admin URL.
 */
function bareLocal(argv: readonly string[]): string[] {
  return argv.flatMap((a, i) => (a === '--local' && NOT_A_URL.test(argv[i + 1] ?? '') ? ['--local='] : [a]));
}

/** parseArgs with the common flags; a bad flag is a UsageError naming the command's help. */
export function parseCommand<O extends Options>(
  name: string,
  argv: readonly string[],
  options: O,
  allowPositionals = false,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof COMMON & O; allowPositionals: boolean; strict: true }>
> {
  const nodeOwn = nodeOwnOption(argv, 'dotenv' in options);
  if (nodeOwn) throw new UsageError(`${nodeOwn}\nRun "reprise ${name} --help" for usage.`);
  const args = 'local' in options ? bareLocal(argv) : [...argv];
  try {
    return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nRun "reprise ${name} --help" for usage.`);
  }
}

/**
 * Runs a command body: prints its help, turns a CliError (or any fault, described by
 * `describe`) into one line on stderr and an exit code.
 */
export async function runCommand(
  name: string,
  help: string,
  argv: readonly string[],
  io: CliIo,
  body: () => Promise<number>,
  describe: (err: unknown) => string | undefined = () => undefined,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    println(io.stdout, help.trimEnd());
    return 0;
  }
  try {
    return await body();
  } catch (err) {
    const code = err instanceof CliError ? err.exitCode : 1;
    const text = err instanceof CliError ? err.message : (describe(err) ?? (err as Error).message ?? String(err));
    println(io.stderr, `reprise ${name}: ${text}`);
    return code;
  }
}

/** Shows `label…` on stderr when the work takes over a second, and how long it took. */
export async function withProgress<T>(io: CliIo, label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let shown = false;
  const timer = setTimeout(() => {
    shown = true;
    println(io.stderr, `${label}…`);
  }, 1000);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
    if (shown) println(io.stderr, `${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A plain-text table: columns padded to their widest cell, long cells clipped. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], maxCell = 80): string {
  const cells = [headers, ...rows].map((r) => r.map((c) => clip(c.replace(/\s+/g, ' '), maxCell)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `2h`, `30m`, `7d`, `45s`, or an ISO date, as epoch milliseconds. */
export function parseSince(value: string, now = Date.now()): number {
  const rel = /^(\d+)\s*([smhd])$/.exec(value.trim());
  if (rel) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[rel[2] as 's' | 'm' | 'h' | 'd'];
    return now - Number(rel[1]) * unit;
  }
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t)) {
    throw new UsageError(`--since: expected a duration (30m, 2h, 7d) or an ISO date, got "${value}"`);
  }
  return t;
}

/** A positive whole number option. */
export function parseCount(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name}: expected a whole number ≥ 1, got "${value}"`);
  return n;
}

/** A time for a person to read, to the second (`—` when unknown). */
export const isoTime = (ms: number | undefined): string =>
  ms === undefined ? '—' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
