import { fail, intParam, json, notFound, paginate, type Route } from './http.js';
import { iso } from './ids.js';
import { withinGrant } from './permissions.js';
import { githubApp, installation, repository } from './render-repo.js';
import type { SimDelivery } from './types.js';

const APPS_DOCS = 'https://docs.github.com/rest/apps/apps';
const INSTALLATION_REPOS_DOCS =
  'https://docs.github.com/rest/apps/installations#list-repositories-accessible-to-the-app-installation';
const HOOK_DOCS = 'https://docs.github.com/rest/apps/webhooks';
const REDELIVERY_WINDOW_MS = 3 * 86_400_000;

function deliveryStatus(code: number): string {
  if (code === 0) return 'timed out';
  return code >= 200 && code < 300 ? 'OK' : `Invalid HTTP Response: ${code}`;
}

function renderDelivery(d: SimDelivery) {
  return {
    id: d.id,
    guid: d.guid,
    delivered_at: d.deliveredAt,
    redelivery: d.redelivery,
    duration: d.duration,
    status: deliveryStatus(d.statusCode),
    status_code: d.statusCode,
    event: d.event,
    action: d.action,
    installation_id: d.installationId,
    repository_id: d.repositoryId,
    throttled_at: null,
  };
}

export const appRoutes: Route[] = [
  {
    method: 'POST',
    template: '/app/installations/{installation_id}/access_tokens',
    auth: 'jwt',
    resource: 'core',
    docs: `${APPS_DOCS}#create-an-installation-access-token-for-an-app`,
    handler: (req, ctx) => {
      const id = intParam(req, 'installation_id');
      const inst = id === null ? undefined : ctx.model.installations.get(id);
      if (!inst) return notFound(`${APPS_DOCS}#create-an-installation-access-token-for-an-app`);
      const asked = (req.body as { permissions?: Record<string, string> } | undefined)?.permissions;
      if (asked && !withinGrant(asked, inst.permissions)) {
        return fail(
          422,
          'The permissions requested are not granted to this installation.',
          `${APPS_DOCS}#create-an-installation-access-token-for-an-app`,
        );
      }
      const permissions = asked ?? inst.permissions;
      const ttl = 3_600_000;
      const token = ctx.model.issueToken(inst.id, permissions, ttl);
      return json(
        { token, expires_at: iso(Date.now() + ttl), permissions, repository_selection: inst.repositorySelection },
        201,
      );
    },
  },
  {
    method: 'GET',
    template: '/app',
    auth: 'jwt',
    resource: 'core',
    docs: `${APPS_DOCS}#get-the-authenticated-app`,
    handler: (_req, ctx) => {
      const app = ctx.model.app;
      return json({
        ...githubApp(ctx.api, app, ctx.model.ownerId(app.owner)),
        installations_count: ctx.model.installations.size,
      });
    },
  },
  {
    method: 'GET',
    template: '/app/installations',
    auth: 'jwt',
    resource: 'core',
    docs: `${APPS_DOCS}#list-installations-for-the-authenticated-app`,
    handler: (req, ctx) => {
      const all = [...ctx.model.installations.values()].sort((a, b) => a.id - b.id);
      const { page, headers } = paginate(all, req, ctx);
      return json(
        page.map((i) => installation(ctx.api, ctx.model.app, i)),
        200,
        headers,
      );
    },
  },
  {
    method: 'GET',
    template: '/installation/repositories',
    auth: 'token',
    resource: 'core',
    docs: INSTALLATION_REPOS_DOCS,
    handler: (req, ctx) => {
      const docs = INSTALLATION_REPOS_DOCS;
      const id = req.auth.kind === 'token' ? req.auth.installationId : null;
      const inst = id === null ? undefined : ctx.model.installations.get(id);
      if (!inst) return fail(403, 'This endpoint requires an installation access token.', docs);
      const repos = [...ctx.model.repos.values()]
        .filter((r) => ctx.model.installationCovers(inst, r.owner, r.name))
        .sort((a, b) => a.id - b.id);
      const { page, headers } = paginate(repos, req, ctx);
      return json(
        {
          total_count: repos.length,
          repositories: page.map((r) => repository(ctx.api, r)),
          repository_selection: inst.repositorySelection,
        },
        200,
        headers,
      );
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/installation',
    auth: 'jwt',
    resource: 'core',
    docs: `${APPS_DOCS}#get-a-repository-installation-for-the-authenticated-app`,
    handler: (req, ctx) => {
      const { owner = '', repo = '' } = req.params;
      const inst = [...ctx.model.installations.values()].find((i) => ctx.model.installationCovers(i, owner, repo));
      return inst
        ? json(installation(ctx.api, ctx.model.app, inst))
        : notFound(`${APPS_DOCS}#get-a-repository-installation-for-the-authenticated-app`);
    },
  },
  {
    method: 'GET',
    template: '/app/hook/config',
    auth: 'jwt',
    resource: 'core',
    docs: `${HOOK_DOCS}#get-a-webhook-configuration-for-an-app`,
    handler: (_req, ctx) => json({ ...ctx.model.hookConfig }),
  },
  {
    method: 'GET',
    template: '/app/hook/deliveries',
    auth: 'jwt',
    resource: 'core',
    docs: `${HOOK_DOCS}#list-deliveries-for-an-app-webhook`,
    handler: (req, ctx) => {
      const docs = `${HOOK_DOCS}#list-deliveries-for-an-app-webhook`;
      const perPage = Math.min(100, Math.max(1, Number(req.query.per_page ?? 30) || 30));
      const cursor = req.query.cursor;
      if (cursor !== undefined && !/^v1_\d+$/.test(cursor)) return fail(400, 'Invalid cursor', docs);
      const before = cursor ? Number(cursor.slice(3)) : Infinity;
      const status = req.query.status;
      const ok = (d: SimDelivery) => d.statusCode >= 200 && d.statusCode < 300;
      const matching = [...ctx.model.deliveries]
        .sort((a, b) => b.id - a.id)
        .filter((d) => d.id < before)
        .filter((d) => !status || (status === 'success' ? ok(d) : !ok(d)));
      const page = matching.slice(0, perPage);
      const last = page[page.length - 1];
      const headers: Record<string, string> = {};
      if (matching.length > perPage && last) {
        const q = new URLSearchParams({ ...req.query, per_page: String(perPage), cursor: `v1_${last.id}` });
        headers.link = `<${ctx.api}/app/hook/deliveries?${q.toString()}>; rel="next"`;
      }
      return json(page.map(renderDelivery), 200, headers);
    },
  },
  {
    method: 'POST',
    template: '/app/hook/deliveries/{delivery_id}/attempts',
    auth: 'jwt',
    resource: 'core',
    docs: `${HOOK_DOCS}#redeliver-a-delivery-for-an-app-webhook`,
    handler: async (req, ctx) => {
      const docs = `${HOOK_DOCS}#redeliver-a-delivery-for-an-app-webhook`;
      const id = intParam(req, 'delivery_id');
      const d = ctx.model.deliveries.find((x) => x.id === id);
      if (!d) return notFound(docs);
      if (Date.now() - Date.parse(d.deliveredAt) > REDELIVERY_WINDOW_MS) {
        return fail(422, 'This delivery is too old to redeliver', docs);
      }
      // Delivered before answering, so a test sees the outcome right after the 202.
      const statusCode = await ctx.redeliver({ guid: d.guid, event: d.event, action: d.action });
      ctx.model.addDelivery({
        guid: d.guid,
        event: d.event,
        action: d.action ?? undefined,
        statusCode,
        redelivery: true,
        installationId: d.installationId ?? undefined,
        repositoryId: d.repositoryId ?? undefined,
      });
      return json({}, 202);
    },
  },
  {
    method: 'POST',
    template: '/app-manifests/{code}/conversions',
    auth: 'none',
    resource: 'core',
    docs: `${APPS_DOCS}#create-a-github-app-from-a-manifest`,
    handler: (req, ctx) => {
      const code = req.params.code ?? '';
      const app = ctx.model.manifestCodes.get(code);
      if (!app) return notFound(`${APPS_DOCS}#create-a-github-app-from-a-manifest`);
      // A code is good for one conversion.
      ctx.model.manifestCodes.delete(code);
      ctx.model.app = app;
      ctx.model.apps.push(app);
      return json(
        {
          ...githubApp(ctx.api, app, ctx.model.ownerId(app.owner)),
          installations_count: 0,
          client_id: app.clientId,
          client_secret: app.clientSecret,
          webhook_secret: app.webhookSecret,
          pem: app.pem,
        },
        201,
      );
    },
  },
];
