import type { Definition, Fragment, Selection, Value } from './graphql-parse.js';
import { enqueue, enqueueRefusal, pullByNodeId } from './merge-queue.js';
import type { SimModel } from './model.js';
import { grants, NOT_ACCESSIBLE } from './permissions.js';
import type { SimPullRequest, SimRepo } from './types.js';

/**
 * The GraphQL the merge queue needs: `repository { pullRequest, object }` and the
 * `enqueuePullRequest` mutation, executed over an already validated document. Fields resolve
 * from plain objects; a field with arguments is a function of them.
 */
interface GqlError {
  type?: string;
  path?: (string | number)[];
  message: string;
}

/** The permissions `enqueuePullRequest` needs of an installation here, as reprise's manifest asks for them. */
export const ENQUEUE_PERMISSIONS = { pull_requests: 'write', contents: 'write', merge_queues: 'write' } as const;

type Resolved = Record<string, unknown> & { __typename?: string };
type Resolver = (args: Record<string, unknown>, path: (string | number)[]) => unknown;

const IMPLEMENTS: Record<string, readonly string[]> = {
  Commit: ['GitObject', 'Node'],
  PullRequest: ['Node'],
  MergeQueueEntry: ['Node'],
};

/** Whether the document is one this module answers. */
export function isMergeQueueDocument(defs: readonly Definition[]): boolean {
  return defs.some(
    (d) =>
      d.kind === 'operation' &&
      (d.operation === 'mutation' || d.selections.some((s) => s.kind === 'field' && s.name === 'repository')),
  );
}

export function answerMergeQueue(
  model: SimModel,
  defs: readonly Definition[],
  variables: Readonly<Record<string, unknown>> = {},
  granted: Readonly<Record<string, string>> | undefined,
): { data: Record<string, unknown> | null; errors?: GqlError[] } {
  const errors: GqlError[] = [];
  // A static token (a personal token) can do what its owner can.
  const may = (name: string, access: 'read' | 'write') => granted === undefined || grants(granted, name, access);
  const fragments = new Map(defs.filter((d): d is Fragment => d.kind === 'fragment').map((f) => [f.name, f]));
  const op = defs.find((d) => d.kind === 'operation');
  if (!op || op.kind !== 'operation') return { data: null, errors: [{ message: 'No operation given.' }] };

  const root: Resolved =
    op.operation === 'mutation'
      ? { enqueuePullRequest: (args: Record<string, unknown>, path: (string | number)[]) => mutate(args, path) }
      : { repository: (args: Record<string, unknown>, path: (string | number)[]) => repository(args, path) };

  function repository(args: Record<string, unknown>, path: (string | number)[]): Resolved | null {
    const repo = model.findRepo(String(args.owner ?? ''), String(args.name ?? ''));
    if (!repo) {
      const message = `Could not resolve to a Repository with the name '${String(args.owner)}/${String(args.name)}'.`;
      errors.push({ type: 'NOT_FOUND', path, message });
      return null;
    }
    return {
      __typename: 'Repository',
      id: repo.nodeId,
      nameWithOwner: repo.fullName,
      pullRequest: (a: Record<string, unknown>, p: (string | number)[]) => pullRequest(repo, Number(a.number), p),
      object: (a: Record<string, unknown>) => commit(String(a.oid ?? '')),
    };
  }

  function pullRequest(repo: SimRepo, number: number, path: (string | number)[]): Resolved | null {
    if (!may('pull_requests', 'read')) {
      errors.push({ type: 'FORBIDDEN', path, message: NOT_ACCESSIBLE });
      return null;
    }
    const pr = model.pull(repo, number);
    if (!pr) {
      errors.push({
        type: 'NOT_FOUND',
        path,
        message: `Could not resolve to a PullRequest with the number of ${number}.`,
      });
      return null;
    }
    return pullView(pr);
  }

  function commit(oid: string): Resolved | null {
    const found = model.commits.get(oid);
    if (!found || !may('contents', 'read')) return null;
    const view = (sha: string): Resolved => ({ __typename: 'Commit', id: `C_${sha}`, oid: sha });
    return {
      ...view(oid),
      parents: (a: Record<string, unknown>) => {
        const shown = found.parents.slice(0, Number(a.first ?? found.parents.length));
        return { totalCount: found.parents.length, nodes: shown.map(view) };
      },
    };
  }

  function mutate(args: Record<string, unknown>, path: (string | number)[]): Resolved | null {
    const input = (args.input ?? {}) as { pullRequestId?: string; expectedHeadOid?: string; jump?: boolean };
    const pr = input.pullRequestId ? pullByNodeId(model, input.pullRequestId) : undefined;
    const refuse = (type: string, message: string): null => {
      errors.push({ type, path, message });
      record(false, message);
      return null;
    };
    const record = (accepted: boolean, message: string | null) =>
      model.enqueueRequests.push({
        pullRequestId: input.pullRequestId ?? '',
        pullRequest: pr?.number ?? null,
        expectedHeadOid: input.expectedHeadOid ?? null,
        jump: input.jump === true,
        at: Date.now(),
        accepted,
        message,
      });
    if (!pr) return refuse('NOT_FOUND', `Could not resolve to a node with the global id of '${input.pullRequestId}'`);
    const lacking = Object.entries(ENQUEUE_PERMISSIONS).filter(([name, level]) => !may(name, level));
    if (lacking.length > 0) return refuse('FORBIDDEN', NOT_ACCESSIBLE);
    const refusal = enqueueRefusal(pr, input.expectedHeadOid ?? null);
    if (refusal) return refuse('UNPROCESSABLE', refusal);
    const entry = enqueue(model, pr);
    record(true, null);
    return { __typename: 'EnqueuePullRequestPayload', clientMutationId: null, mergeQueueEntry: entry };
  }

  function pullView(pr: SimPullRequest): Resolved {
    return {
      __typename: 'PullRequest',
      id: pr.nodeId,
      number: pr.number,
      state: pr.state === 'open' ? 'OPEN' : 'CLOSED',
      headRefOid: pr.headSha,
      isInMergeQueue: pr.inMergeQueue,
      mergeable: pr.mergeable ? 'MERGEABLE' : 'CONFLICTING',
      mergeQueueEntry: pr.inMergeQueue ? { __typename: 'MergeQueueEntry', id: `MQE_${pr.nodeId}`, position: 1 } : null,
    };
  }

  const argValue = (v: Value): unknown => {
    switch (v.kind) {
      case 'variable':
        return variables[v.name];
      case 'int':
      case 'string':
      case 'boolean':
        return v.value;
      case 'list':
        return v.values.map(argValue);
      case 'object':
        return Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, argValue(f)]));
      default:
        throw new Error('the simulator cannot read this argument value');
    }
  };

  const fits = (on: string | null, type: string | undefined): boolean =>
    on === null || on === type || (type !== undefined && (IMPLEMENTS[type] ?? []).includes(on));

  const select = (value: Resolved, selections: readonly Selection[], path: (string | number)[]): Resolved => {
    const out: Resolved = {};
    for (const s of selections) {
      if (s.kind === 'spread') {
        const f = fragments.get(s.name);
        if (f && fits(f.on, value.__typename)) Object.assign(out, select(value, f.selections, path));
      } else if (s.kind === 'inline') {
        if (fits(s.on, value.__typename)) Object.assign(out, select(value, s.selections, path));
      } else {
        const key = s.alias ?? s.name;
        const at = [...path, key];
        const raw = value[s.name];
        const args = Object.fromEntries(Object.entries(s.args).map(([k, v]) => [k, argValue(v)]));
        const resolved = typeof raw === 'function' ? (raw as Resolver)(args, at) : raw;
        out[key] = s.selections ? shape(resolved, s.selections, at) : (resolved ?? null);
      }
    }
    return out;
  };
  const shape = (v: unknown, selections: readonly Selection[], path: (string | number)[]): unknown => {
    if (v === null || v === undefined) return null;
    if (Array.isArray(v)) return v.map((x, i) => shape(x, selections, [...path, i]));
    return select(v as Resolved, selections, path);
  };

  const data = select(root, op.selections, []);
  return errors.length ? { data, errors } : { data };
}
