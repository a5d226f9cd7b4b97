import { json, type Route, type SimContext } from './http.js';
import { answerMergeQueue, isMergeQueueDocument } from './graphql-merge-queue.js';
import { checkQuery, queryCost } from './graphql-schema.js';
import { grants, NOT_ACCESSIBLE } from './permissions.js';
import { graphqlAnnotation } from './render-actions.js';

const GRAPHQL_DOCS = 'https://docs.github.com/graphql';
const MAX_NODES = 100;

interface GraphqlError {
  type?: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  message: string;
}

function resolveNode(
  ctx: SimContext,
  id: string,
  at: [string, number],
  first: number,
  readsChecks: boolean,
): { node: unknown; error?: GraphqlError } {
  const jobId = ctx.model.nodes.get(id);
  const found = jobId === undefined ? undefined : ctx.model.jobs.get(jobId);
  const path = [...at];
  if (!found) {
    const message = `Could not resolve to a node with the global id of '${id}'`;
    return { node: null, error: { type: 'NOT_FOUND', path, locations: [{ line: 2, column: 3 }], message } };
  }
  const { job } = found;
  if (!readsChecks) return { node: null, error: { type: 'FORBIDDEN', path, message: NOT_ACCESSIBLE } };
  if (!Array.isArray(job.annotations)) {
    const forbidden = job.annotations.status === 403;
    const message = forbidden
      ? 'Resource not accessible by integration'
      : `Could not resolve to a node with the global id of '${id}'`;
    return { node: null, error: { type: forbidden ? 'FORBIDDEN' : 'NOT_FOUND', path, message } };
  }
  const shown = job.annotations.slice(0, first);
  return {
    node: {
      __typename: 'CheckRun',
      id: job.nodeId,
      databaseId: job.id,
      name: job.name,
      status: job.status.toUpperCase(),
      conclusion: job.conclusion ? job.conclusion.toUpperCase() : null,
      annotations: {
        totalCount: job.annotations.length,
        pageInfo: {
          hasNextPage: job.annotations.length > first,
          endCursor: shown.length ? `Y3Vyc29yOjE${shown.length}` : null,
        },
        nodes: shown.map(graphqlAnnotation),
      },
    },
  };
}

export const graphqlRoutes: Route[] = [
  {
    method: 'POST',
    template: '/graphql',
    auth: 'token',
    resource: 'graphql',
    docs: GRAPHQL_DOCS,
    handler: async (req, ctx) => {
      const body = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
      if (typeof body.query !== 'string') {
        return json({ errors: [{ message: 'A query attribute must be specified and must be a string.' }] });
      }
      const checked = await checkQuery(body.query);
      if ('errors' in checked) return json({ errors: checked.errors });
      const cost = queryCost(checked.defs, body.variables);
      const granted = req.auth.kind === 'token' ? ctx.model.tokens.get(req.auth.token)?.permissions : undefined;
      // A static token (a personal token) reads whatever its owner can.
      if (isMergeQueueDocument(checked.defs)) {
        return { ...json(answerMergeQueue(ctx.model, checked.defs, body.variables, granted)), cost };
      }
      const readsChecks = granted === undefined || grants(granted, 'checks', 'read');
      // Each `[alias:] nodes(ids: $var)` field is answered under its alias, as GitHub does.
      const fields = [...body.query.matchAll(/(?:(\w+)\s*:\s*)?\bnodes\s*\(\s*ids\s*:\s*\$(\w+)\s*\)/g)].map((m) => ({
        alias: m[1] ?? 'nodes',
        variable: m[2] as string,
      }));
      if (fields.length === 0) {
        return json({ errors: [{ message: 'The simulator only answers nodes(ids: ...) queries.' }] });
      }
      const first = Number(/annotations\s*\(\s*first\s*:\s*(\d+)/.exec(body.query)?.[1] ?? 50);
      const errors: GraphqlError[] = [];
      const data: Record<string, unknown> = {};
      for (const { alias, variable } of fields) {
        const ids = body.variables?.[variable];
        if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) {
          return json({
            errors: [
              { type: 'INVALID_VARIABLES', message: `Variable $${variable} of type [ID!]! was provided invalid value` },
            ],
          });
        }
        if (ids.length > MAX_NODES) {
          return json({
            data: null,
            errors: [{ type: 'EXCESSIVE_PAGINATION', message: `You may not request more than ${MAX_NODES} nodes.` }],
          });
        }
        data[alias] = ids.map((id: string, i) => {
          const r = resolveNode(ctx, id, [alias, i], first, readsChecks);
          if (r.error) errors.push(r.error);
          return r.node;
        });
      }
      if (/\brateLimit\b/.test(body.query)) {
        const g = ctx.rateLimits().graphql;
        if (g)
          data.rateLimit = {
            cost,
            limit: g.limit,
            remaining: g.remaining - cost,
            used: g.used + cost,
            resetAt: new Date(g.reset * 1000).toISOString(),
          };
      }
      return { ...json(errors.length ? { data, errors } : { data }), cost };
    },
  },
];
