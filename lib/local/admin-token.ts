import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LambdaHttpHandler } from './http-server.js';

/** The file, in the data directory, that holds the key to the operator routes. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/** The token file of a data directory (`.reprise` in the working directory when none is given). */
export const adminTokenPath = (dataDir: string | undefined): string => join(dataDir ?? '.reprise', ADMIN_TOKEN_FILE);

/**
 * Removes a token file that may have been read by someone else: one others could read (any
 * group or other mode bit), one of another account, or anything but a plain file (a link
 * included). Such a token is no longer the operator's secret, so narrowing its mode is not
 * enough. True when one was removed. Called before anything tightens the data directory.
 */
export async function discardExposedAdminToken(file: string): Promise<boolean> {
  let st;
  try {
    st = await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (st.isDirectory()) return false; // not a token file: loadOrCreateAdminToken names the error
  const ownUid = process.getuid?.();
  const exposed = !st.isFile() || (st.mode & 0o077) !== 0 || (ownUid !== undefined && st.uid !== ownUid);
  if (exposed) await unlink(file);
  return exposed;
}

/**
 * Reads the admin token from `file`, or writes a new random one there on first start. The file
 * is the operator's only: mode 0600, in a directory created 0700. A token file others could
 * read is replaced by a new token, never kept; the new file is complete and 0600 before its name
 * appears.
 */
export async function loadOrCreateAdminToken(file: string): Promise<string> {
  await discardExposedAdminToken(file);
  try {
    const text = (await readFile(file, 'utf8')).trim();
    if (text.length >= 32) return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const fresh = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(fresh, `${token}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(fresh, 0o600);
  await rename(fresh, file);
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
