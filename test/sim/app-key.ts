import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

let defaultKey: string | undefined;

/**
 * The private key of the simulator's default App, one per process: tests sign with it (through
 * auth-app or `signAppJwt`) and the simulator verifies against its public half.
 */
export function simAppPrivateKey(): string {
  defaultKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  return defaultKey;
}

/** The public half of a PEM private key; null when the text is no key. */
export function publicKeyOf(pem: string): KeyObject | null {
  try {
    return createPublicKey(createPrivateKey(pem));
  } catch {
    return null;
  }
}

const enc = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

/** A JWT with these claims, signed RS256 with `privateKey` (the default App's unless given). */
export function signAppJwt(claims: Record<string, unknown>, privateKey = simAppPrivateKey()): string {
  const signed = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), privateKey).toString('base64url')}`;
}
