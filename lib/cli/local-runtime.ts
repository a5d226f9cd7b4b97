import { CliError, type CliIo } from './io.js';

/**
 * Calls the local runtime's admin routes (`npm start`); any failure names the URL tried.
 * A 4xx answer with a JSON body is returned to the caller when `accept` lists its status.
 */
export async function localRequest(
  io: CliIo,
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  accept: readonly number[] = [],
): Promise<unknown> {
  const url = `${base.replace(/\/+$/, '')}${path}`;
  let res: Response;
  try {
    res = await (io.fetch ?? fetch)(url, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
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
  const hint = res.status === 404 ? ' (a runtime without the admin routes?)' : '';
  throw new CliError(`${method} ${url} answered ${res.status}: ${said}${hint}`);
}
