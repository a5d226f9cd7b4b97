import { intParam, json, notFound, type Route, sameEtag } from './http.js';
import { HTML, pullRequest } from './render-repo.js';

const PULLS_DOCS = 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request';
const CONTENTS_DOCS = 'https://docs.github.com/rest/repos/contents#get-repository-content';

function etagOf(sha: string): string {
  return `W/"${sha}"`;
}

export const repoRoutes: Route[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/pulls/{pull_number}',
    auth: 'token',
    resource: 'core',
    docs: PULLS_DOCS,
    handler: (req, ctx) => {
      const repo = ctx.model.findRepo(req.params.owner ?? '', req.params.repo ?? '');
      const n = intParam(req, 'pull_number');
      const pr = repo && n !== null ? ctx.model.pull(repo, n) : undefined;
      return repo && pr ? json(pullRequest(ctx.api, repo, pr)) : notFound(PULLS_DOCS);
    },
  },
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/contents/{path}',
    auth: 'token',
    resource: 'core',
    docs: CONTENTS_DOCS,
    handler: (req, ctx) => {
      const repo = ctx.model.findRepo(req.params.owner ?? '', req.params.repo ?? '');
      const path = req.params.path ?? '';
      const file = repo ? ctx.model.file(repo, path) : undefined;
      if (!repo || !file) return notFound(CONTENTS_DOCS);
      const etag = etagOf(file.sha);
      if (sameEtag(req.headers['if-none-match'], etag)) return { status: 304, headers: { etag } };
      const ref = req.query.ref ?? repo.defaultBranch;
      const apiUrl = `${ctx.api}/repos/${repo.fullName}/contents/${path}?ref=${encodeURIComponent(ref)}`;
      const gitUrl = `${ctx.api}/repos/${repo.fullName}/git/blobs/${file.sha}`;
      const htmlUrl = `${HTML}/${repo.fullName}/blob/${ref}/${path}`;
      const body = {
        type: 'file',
        encoding: 'base64',
        size: Buffer.byteLength(file.content, 'utf8'),
        name: path.split('/').pop() ?? path,
        path,
        content: file.encoded,
        sha: file.sha,
        url: apiUrl,
        git_url: gitUrl,
        html_url: htmlUrl,
        download_url: `https://raw.githubusercontent.com/${repo.fullName}/${ref}/${path}`,
        _links: { self: apiUrl, git: gitUrl, html: htmlUrl },
      };
      return json(body, 200, { etag, 'cache-control': 'private, max-age=60, s-maxage=60' });
    },
  },
  {
    method: 'GET',
    template: '/rate_limit',
    auth: 'token',
    resource: 'core',
    docs: 'https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user',
    handler: (_req, ctx) => {
      const limits = ctx.rateLimits();
      const reset = Math.floor(Date.now() / 1000) + 60;
      const fixed = (limit: number) => ({ limit, remaining: limit, reset, used: 0 });
      const core = limits.core ?? fixed(5000);
      return json({
        resources: {
          core,
          graphql: limits.graphql ?? fixed(5000),
          search: fixed(30),
          code_search: fixed(10),
          integration_manifest: fixed(5000),
        },
        rate: core,
      });
    },
  },
];
