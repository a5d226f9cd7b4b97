import { fail, type Route, type SimRequest, type SimResponse } from './http.js';
import type { SimModel } from './model.js';

const AUTH_DOCS = 'https://docs.github.com/rest';

function credential(req: SimRequest): { scheme: string; value: string } | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const m = /^(\w+)\s+(.+)$/.exec(header.trim());
  return m?.[1] && m[2] ? { scheme: m[1].toLowerCase(), value: m[2] } : null;
}

/** Reads a JWT's claims without checking its signature; null when it is not a JWT. */
export function decodeJwt(value: string): Record<string, unknown> | null {
  const parts = value.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0] ?? '', 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as unknown;
    if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null) return null;
    return claims as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * Checks the Authorization header for a route and fills `req.auth`. Returns the refusal, or null when allowed.
 * An installation token only sees its installation's repositories; others answer 404 as on GitHub.
 */
export function authenticate(model: SimModel, route: Route, req: SimRequest): SimResponse | null {
  if (route.auth === 'none') return null;
  const cred = credential(req);
  if (route.auth === 'jwt') {
    const claims = cred && cred.scheme === 'bearer' ? decodeJwt(cred.value) : null;
    if (!claims) return fail(401, 'A JSON web token could not be decoded', AUTH_DOCS);
    if (typeof claims.exp === 'number' && claims.exp * 1000 < Date.now()) {
      return fail(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
        AUTH_DOCS,
      );
    }
    req.auth = { kind: 'jwt', issuer: claims.iss === undefined ? null : String(claims.iss) };
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
  return null;
}
