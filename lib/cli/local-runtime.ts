import { readFile } from 'node:fs/promises';
import { fromEnv } from '../config/settings-schema.js';
import { isLoopbackHost } from './github.js';
import { CliError, type CliIo } from './io.js';

/** A running local runtime's operator port, and the data directory its token is kept in. */
export interface LocalTarget {
  readonly url: string;
  /** The runtime's `--data-dir`; its `admin-token` file holds the key. */
  readonly dataDir?: string | undefined;
}

/** Where `npm start` puts its operator port with this environment: ADMIN_PORT, else PORT + 1, on 127.0.0.1. */
export function defaultAdminUrl(env: CliIo['env']): string {
  const port = fromEnv(env, 'adminPort') ?? fromEnv(env, 'port') + 1;
  return `http://127.0.0.1:${port}`;
}

/** `--local URL` as given; a bare `--local` (empty, see parseCommand) is the default admin URL. */
export const localUrl = (env: CliIo['env'], given: string | undefined): string | undefined =>
  given === undefined ? undefined : given.trim() || defaultAdminUrl(env);

/** The token file the local runtime writes on first start (`.reprise` without `--data-dir`). */
export const localTokenFile = (dataDir: string | undefined): string =>
  `${(dataDir ?? '.reprise').replace(/\/+$/, '')}/admin-token`;

/** `REPRISE_ADMIN_TOKEN`, else the runtime's token file. */
export async function localToken(io: CliIo, dataDir: string | undefined): Promise<string> {
  const fromEnv = io.env.REPRISE_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = localTokenFile(dataDir);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return token;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CliError(`cannot read the local runtime's admin token ${file}: ${(err as Error).message}`);
    }
  }
  throw new CliError(
    `no admin token for the local runtime in ${file}: pass --data-dir DIR as given to "npm start", or set REPRISE_ADMIN_TOKEN`,
  );
}

/**
 * The admin token opens every decision and replay: it goes to this machine only (127.0.0.0/8,
 * ::1, localhost), where the runtime's operator port listens. Anything else is refused before
 * the token is read.
 */
export function requireLoopbackAdminUrl(url: string): void {
  let host: string | undefined;
  try {
    const u = new URL(url);
    host = u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname : undefined;
  } catch {
    host = undefined;
  }
  if (host !== undefined && isLoopbackHost(host)) return;
  throw new CliError(
    `--local ${url}: the admin token goes only to the local runtime on this machine (http://127.0.0.1, ` +
      '::1 or localhost); nothing was sent. Run the command on the machine that runs "npm start"',
  );
}

/**
 * Calls the local runtime's operator routes (`npm start`), with its admin token (to a loopback
 * URL only); any failure names the URL tried. A 4xx answer with a JSON body is returned to the caller when `accept`
 * lists its status.
 */
export async function localRequest(
  io: CliIo,
  target: string | LocalTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  accept: readonly number[] = [],
): Promise<unknown> {
  const { url: base, dataDir } = typeof target === 'string' ? { url: target, dataDir: undefined } : target;
  requireLoopbackAdminUrl(base);
  const url = `${base.replace(/\/+$/, '')}${path}`;
  const authorization = `Bearer ${await localToken(io, dataDir)}`;
  let res: Response;
  try {
    res = await (io.fetch ?? fetch)(url, {
      method,
      headers: { authorization, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new CliError(`cannot reach the local runtime: ${method} ${url} failed (${code}); is "npm start" running?`);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.ok || accept.includes(res.status)) return parsed;
  const said = (parsed as { error?: string } | undefined)?.error ?? text.slice(0, 200);
  const hint =
    res.status === 404
      ? ' (the public port? --local takes the admin port, PORT + 1 by default)'
      : res.status === 401
        ? ` (the token in ${localTokenFile(dataDir)} or REPRISE_ADMIN_TOKEN is not this runtime's)`
        : '';
  throw new CliError(`${method} ${url} answered ${res.status}: ${said}${hint}`);
}
