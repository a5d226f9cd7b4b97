import { verify } from 'node:crypto';
import { publicKeyOf } from './app-key.js';
import { fail, type Route, type SimRequest, type SimResponse } from './http.js';
import type { SimModel } from './model.js';
import { grants, NOT_ACCESSIBLE, permissionFor } from './permissions.js';

const AUTH_DOCS = 'https://docs.github.com/rest';

function credential(req: SimRequest): { scheme: string; value: string } | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = /^(\w+)\s+(.+)$/.exec(header.trim());
  return m?.[1] && m[2] ? { scheme: m[1].toLowerCase(), value: m[2] } : null;
}

interface DecodedJwt {
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
  readonly signed: string;
  readonly signature: Buffer;
}

function decode(value: string): DecodedJwt | null {
  const parts = value.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as unknown;
    if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null) return null;
    return {
      header: header as Record<string, unknown>,
      claims: claims as Record<string, unknown>,
      signed: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2] ?? '', 'base64url'),
    };
  } catch {
    return null;
  }
}

/** Reads a JWT's claims without checking its signature; null when it is not a JWT. */
export function decodeJwt(value: string): Record<string, unknown> | null {
  return decode(value)?.claims ?? null;
}

/** GitHub accepts an `iat` this far ahead of its clock, for clock drift. */
const CLOCK_SKEW_S = 60;
/** An App JWT lives at most ten minutes. */
const MAX_JWT_LIFETIME_S = 600;

/**
 * Verifies an App JWT as GitHub does: RS256, signed with the key of the App its `iss` names (id
 * or client id), `iat` not ahead of the clock beyond drift, `exp` in the future and at most ten
 * minutes after `iat`. Answers the App's id, or GitHub's refusal text.
 */
export function verifyAppJwt(
  model: SimModel,
  value: string,
  nowMs = Date.now(),
): { ok: true; issuer: string } | { ok: false; message: string } {
  const undecodable = { ok: false, message: 'A JSON web token could not be decoded' } as const;
  const jwt = decode(value);
  if (!jwt || jwt.header.alg !== 'RS256') return undecodable;
  const app = model.appByIssuer(jwt.claims.iss);
  if (!app) return { ok: false, message: "'Issuer' claim ('iss') must be an Integer or the client ID of a GitHub App" };
  const key = publicKeyOf(app.pem);
  if (!key || !verify('sha256', Buffer.from(jwt.signed), key, jwt.signature)) return undecodable;
  const { iat, exp } = jwt.claims;
  const now = Math.floor(nowMs / 1000);
  if (typeof iat !== 'number' || iat > now + CLOCK_SKEW_S) {
    return {
      ok: false,
      message: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
    };
  }
  if (typeof exp !== 'number' || exp <= now) {
    return {
      ok: false,
      message:
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    };
  }
  if (exp - iat > MAX_JWT_LIFETIME_S)
    return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
  return { ok: true, issuer: String(app.id) };
}

/**
 * Checks the Authorization header for a route and fills `req.auth`. Returns the refusal, or null when allowed.
 * An installation token only sees its installation's repositories; others answer 404 as on GitHub.
 */
export function authenticate(model: SimModel, route: Route, req: SimRequest): SimResponse | null {
  if (route.auth === 'none') return null;
  const cred = credential(req);
  if (route.auth === 'jwt') {
    if (!cred || cred.scheme !== 'bearer') return fail(401, 'A JSON web token could not be decoded', AUTH_DOCS);
    const verified = verifyAppJwt(model, cred.value);
    if (!verified.ok) return fail(401, verified.message, AUTH_DOCS);
    req.auth = { kind: 'jwt', issuer: verified.issuer };
    return null;
  }
  if (!cred || (cred.scheme !== 'token' && cred.scheme !== 'bearer')) {
    return fail(401, 'Requires authentication', route.docs);
  }
  if (model.staticTokens.has(cred.value)) {
    req.auth = { kind: 'token', token: cred.value, installationId: null };
    return null;
  }
  const issued = model.tokens.get(cred.value);
  if (!issued || issued.expiresAt < Date.now()) return fail(401, 'Bad credentials', AUTH_DOCS);
  req.auth = { kind: 'token', token: cred.value, installationId: issued.installationId };
  const { owner, repo } = req.params;
  if (issued.installationId !== null && owner && repo) {
    const inst = model.installations.get(issued.installationId);
    if (!inst || !model.installationCovers(inst, owner, repo)) return fail(404, 'Not Found', route.docs);
  }
  const needs = permissionFor(route);
  if (needs && !grants(issued.permissions, ...needs)) return fail(403, NOT_ACCESSIBLE, route.docs);
  return null;
}
