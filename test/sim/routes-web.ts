import { generateKeyPairSync } from 'node:crypto';
import { fail, type Route, type SimRequest, type SimResponse } from './http.js';

/** GitHub's web host, not its API: where a browser posts an App manifest. */
const MANIFEST_DOCS = 'https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest';

let issuedKey: string | undefined;

/** A real RSA key, as GitHub issues one, so the App's credentials work wherever they are used. */
function privateKey(): string {
  issuedKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs1',
    format: 'pem',
  }) as string;
  return issuedKey;
}

interface PostedManifest {
  name?: unknown;
  redirect_url?: unknown;
  hook_attributes?: { url?: unknown };
}

/**
 * The form post of "create a GitHub App from a manifest", confirmed at once: GitHub's confirmation
 * page is the person's click, so the simulator answers with the redirect that follows it.
 */
function createFromManifest(req: SimRequest, ctx: Parameters<Route['handler']>[1]): SimResponse {
  const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
  let manifest: PostedManifest;
  try {
    manifest = JSON.parse(form.get('manifest') ?? '') as PostedManifest;
  } catch {
    return fail(422, 'the form has no manifest field with JSON in it', MANIFEST_DOCS);
  }
  const redirect = typeof manifest.redirect_url === 'string' ? manifest.redirect_url : '';
  if (!/^https?:\/\//.test(redirect) || typeof manifest.hook_attributes?.url !== 'string') {
    return fail(422, 'the manifest needs redirect_url and hook_attributes.url', MANIFEST_DOCS);
  }
  const name = typeof manifest.name === 'string' && manifest.name ? manifest.name : 'app';
  const id = 2_000_000 + ctx.model.nextId('manifest-app');
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${id}`;
  const code = ctx.model.rng.hex(20);
  ctx.model.manifestCodes.set(code, {
    id,
    slug,
    name,
    owner: req.params.org ?? ctx.model.app.owner,
    pem: privateKey(),
    webhookSecret: ctx.model.rng.hex(40),
    clientId: `Iv23li${ctx.model.rng.alnum(14)}`,
    clientSecret: ctx.model.rng.hex(40),
    htmlUrl: `${ctx.api}/apps/${slug}`,
  });
  const back = new URL(redirect);
  back.searchParams.set('code', code);
  if (req.query.state !== undefined) back.searchParams.set('state', req.query.state);
  return { status: 302, headers: { location: back.toString() } };
}

export const webRoutes: Route[] = [
  {
    method: 'POST',
    template: '/settings/apps/new',
    auth: 'none',
    resource: null,
    docs: MANIFEST_DOCS,
    handler: createFromManifest,
  },
  {
    method: 'POST',
    template: '/organizations/{org}/settings/apps/new',
    auth: 'none',
    resource: null,
    docs: MANIFEST_DOCS,
    handler: createFromManifest,
  },
];
