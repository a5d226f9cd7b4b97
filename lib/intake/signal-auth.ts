/**
 * Who a `POST /signals` speaks as: the bearer token or the HMAC over `<timestamp>.<body>` each
 * secret is matched against, in constant time, with the secret's scope kept for the records.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ANY_OWNER, type ScopedSecret } from '../config/signal-scope.js';
import type { HttpRequest } from '../http/lambda-http.js';

// Digests have one length, so timingSafeEqual never throws and the length never leaks.
const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** How far an HMAC post's timestamp may be from the intake's clock when none is configured. */
export const DEFAULT_TIMESTAMP_TOLERANCE_MS = 300_000;

/** The HMAC a post carries: over `<timestamp>.<raw body>`, keyed with the secret. */
export const signalSignature = (secret: string, timestamp: string, body: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;

/** Who the post speaks as: the secret that signed it (with its scope), and how. */
export type SignalAuth =
  | { readonly secret: ScopedSecret; readonly via: 'bearer' }
  | { readonly secret: ScopedSecret; readonly via: 'hmac'; readonly signature: string; readonly timestampMs: number }
  | { readonly refused: string };

const asScoped = (s: string | ScopedSecret): ScopedSecret =>
  typeof s === 'string' ? { secret: s, scope: ANY_OWNER } : s;

/**
 * Which secret the bearer token or the HMAC matches. An HMAC signs `X-Reprise-Timestamp` (Unix
 * seconds) with the body, and counts only within `toleranceMs` of `nowMs`: a captured body
 * cannot be posted again later. (Replays within the window are the caller's to refuse.)
 */
export function authorizeSignal(
  secrets: readonly (string | ScopedSecret)[],
  headers: HttpRequest['headers'],
  body: Buffer,
  nowMs: number,
  toleranceMs: number = DEFAULT_TIMESTAMP_TOLERANCE_MS,
): SignalAuth {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.authorization ?? '')?.[1];
  const signature = headers['x-reprise-signature-256']?.trim().toLowerCase();
  const timestamp = headers['x-reprise-timestamp']?.trim();
  const wrong = { refused: 'missing or wrong bearer token or X-Reprise-Signature-256' };
  for (const s of secrets.map(asScoped)) {
    if (!s.secret) continue;
    if (bearer !== undefined && sameSecret(bearer, s.secret)) return { secret: s, via: 'bearer' };
  }
  if (signature === undefined) return wrong;
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return { refused: 'X-Reprise-Timestamp missing or not Unix seconds: an HMAC signs `<timestamp>.<body>`' };
  }
  const signer = secrets
    .map(asScoped)
    .find((s) => s.secret && sameSecret(signature, signalSignature(s.secret, timestamp, body)));
  if (!signer) return wrong;
  const timestampMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - timestampMs) > toleranceMs) {
    return {
      refused: `X-Reprise-Timestamp ${timestamp} is more than ${Math.round(toleranceMs / 1000)} s from now: sign the post afresh`,
    };
  }
  return { secret: signer, via: 'hmac', signature, timestampMs };
}
