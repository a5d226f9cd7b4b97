import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LambdaHttpHandler } from './http-server.js';

/** The file, in the data directory, that holds the key to the operator routes. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/** The token file of a data directory (`.reprise` in the working directory when none is given). */
export const adminTokenPath = (dataDir: string | undefined): string => join(dataDir ?? '.reprise', ADMIN_TOKEN_FILE);

/**
 * Reads the admin token from `file`, or writes a new random one there on first start. The file
 * is the operator's only: mode 0600, in a directory created 0700; a token file others can read
 * is narrowed back to 0600 rather than trusted as it is.
 */
export async function loadOrCreateAdminToken(file: string): Promise<string> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if ((await stat(file)).mode & 0o077) await chmod(file, 0o600);
    if (text.length >= 32) return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return token;
}

const sameToken = (given: string, token: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Answers 401 unless the request carries `Authorization: Bearer <token>`. */
export function requireToken(token: string, handler: LambdaHttpHandler): LambdaHttpHandler {
  return async (event) => {
    const header = event.headers?.authorization ?? '';
    const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!given || !sameToken(given, token)) {
      return {
        statusCode: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="reprise-admin"' },
        body: JSON.stringify({ error: 'the admin routes need the token from the data directory (admin-token)' }),
      };
    }
    return handler(event);
  };
}
