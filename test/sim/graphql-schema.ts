import { validate as validateAgainstPublished } from '@octokit/graphql-schema';
import {
  type Definition,
  type Field,
  type Fragment,
  GraphqlSyntaxError,
  parseDocument,
  type Selection,
} from './graphql-parse.js';

/**
 * The part of GitHub's published GraphQL schema (schema.docs.graphql) the simulator answers,
 * copied field for field: a query naming anything outside it is refused as GitHub refuses an
 * unknown field. Every query is also validated against the whole published schema.
 */
interface FieldType {
  /** The named type the field returns (lists and non-null stripped). */
  readonly type: string;
  readonly args?: Readonly<Record<string, { readonly required?: boolean }>>;
}

const PAGING = { first: {}, after: {}, last: {}, before: {} };

const OBJECTS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  Query: {
    node: { type: 'Node', args: { id: { required: true } } },
    nodes: { type: 'Node', args: { ids: { required: true } } },
    rateLimit: { type: 'RateLimit', args: { dryRun: {} } },
    repository: {
      type: 'Repository',
      args: { owner: { required: true }, name: { required: true }, followRenames: {} },
    },
  },
  Mutation: {
    enqueuePullRequest: { type: 'EnqueuePullRequestPayload', args: { input: { required: true } } },
  },
  Repository: {
    id: { type: 'ID' },
    nameWithOwner: { type: 'String' },
    pullRequest: { type: 'PullRequest', args: { number: { required: true } } },
    object: { type: 'GitObject', args: { oid: {}, expression: {} } },
  },
  PullRequest: {
    id: { type: 'ID' },
    number: { type: 'Int' },
    state: { type: 'PullRequestState' },
    headRefOid: { type: 'GitObjectID' },
    isInMergeQueue: { type: 'Boolean' },
    mergeable: { type: 'MergeableState' },
    mergeQueueEntry: { type: 'MergeQueueEntry' },
  },
  GitObject: { id: { type: 'ID' }, oid: { type: 'GitObjectID' } },
  Commit: {
    id: { type: 'ID' },
    oid: { type: 'GitObjectID' },
    parents: { type: 'CommitConnection', args: PAGING },
  },
  CommitConnection: {
    nodes: { type: 'Commit' },
    pageInfo: { type: 'PageInfo' },
    totalCount: { type: 'Int' },
  },
  EnqueuePullRequestPayload: {
    clientMutationId: { type: 'String' },
    mergeQueueEntry: { type: 'MergeQueueEntry' },
  },
  MergeQueueEntry: {
    id: { type: 'ID' },
    position: { type: 'Int' },
    state: { type: 'MergeQueueEntryState' },
    jump: { type: 'Boolean' },
    solo: { type: 'Boolean' },
    enqueuedAt: { type: 'DateTime' },
  },
  Node: { id: { type: 'ID' } },
  CheckRun: {
    id: { type: 'ID' },
    databaseId: { type: 'Int' },
    name: { type: 'String' },
    status: { type: 'CheckStatusState' },
    conclusion: { type: 'CheckConclusionState' },
    detailsUrl: { type: 'URI' },
    startedAt: { type: 'DateTime' },
    completedAt: { type: 'DateTime' },
    url: { type: 'URI' },
    annotations: { type: 'CheckAnnotationConnection', args: PAGING },
  },
  CheckAnnotationConnection: {
    edges: { type: 'CheckAnnotationEdge' },
    nodes: { type: 'CheckAnnotation' },
    pageInfo: { type: 'PageInfo' },
    totalCount: { type: 'Int' },
  },
  CheckAnnotationEdge: { cursor: { type: 'String' }, node: { type: 'CheckAnnotation' } },
  CheckAnnotation: {
    annotationLevel: { type: 'CheckAnnotationLevel' },
    blobUrl: { type: 'URI' },
    databaseId: { type: 'Int' },
    location: { type: 'CheckAnnotationSpan' },
    message: { type: 'String' },
    path: { type: 'String' },
    rawDetails: { type: 'String' },
    title: { type: 'String' },
  },
  CheckAnnotationSpan: { start: { type: 'CheckAnnotationPosition' }, end: { type: 'CheckAnnotationPosition' } },
  CheckAnnotationPosition: { line: { type: 'Int' }, column: { type: 'Int' } },
  PageInfo: {
    endCursor: { type: 'String' },
    hasNextPage: { type: 'Boolean' },
    hasPreviousPage: { type: 'Boolean' },
    startCursor: { type: 'String' },
  },
  RateLimit: {
    cost: { type: 'Int' },
    limit: { type: 'Int' },
    nodeCount: { type: 'Int' },
    remaining: { type: 'Int' },
    resetAt: { type: 'DateTime' },
    used: { type: 'Int' },
  },
};

/** Types a fragment on `key` may also be spread into (an interface and what implements it). */
const IMPLEMENTS: Readonly<Record<string, readonly string[]>> = {
  CheckRun: ['Node'],
  Commit: ['GitObject', 'Node'],
  PullRequest: ['Node'],
  MergeQueueEntry: ['Node'],
};
const LEAVES = new Set([
  'ID',
  'Int',
  'String',
  'Boolean',
  'DateTime',
  'URI',
  'CheckStatusState',
  'CheckConclusionState',
  'CheckAnnotationLevel',
  'GitObjectID',
  'PullRequestState',
  'MergeableState',
  'MergeQueueEntryState',
]);

export interface GraphqlError {
  readonly message: string;
  readonly locations?: { line: number; column: number }[];
  readonly extensions?: { code: string };
}

const known = (type: string): boolean => type in OBJECTS || LEAVES.has(type);
const fitsIn = (fragmentType: string, into: string): boolean =>
  fragmentType === into ||
  (IMPLEMENTS[fragmentType] ?? []).includes(into) ||
  (IMPLEMENTS[into] ?? []).includes(fragmentType);

/** GitHub's validation errors for a parsed document, in its words; empty when valid. */
export function validateDocument(defs: readonly Definition[]): GraphqlError[] {
  const errors: GraphqlError[] = [];
  const fragments = new Map(defs.filter((d): d is Fragment => d.kind === 'fragment').map((f) => [f.name, f]));
  const usedFragments = new Set<string>();
  const at = (s: { line: number; column: number }) => [{ line: s.line, column: s.column }];

  const walk = (selections: readonly Selection[], type: string, usedVars: Set<string>, seen: Set<string>): void => {
    for (const s of selections) {
      if (s.kind === 'spread') {
        const f = fragments.get(s.name);
        usedFragments.add(s.name);
        if (!f) errors.push({ message: `Fragment ${s.name} was used, but not defined`, locations: at(s) });
        else if (!fitsIn(f.on, type)) {
          errors.push({
            message: `Fragment ${s.name} on ${f.on} can't be spread inside ${type}`,
            locations: at(s),
          });
        } else if (!seen.has(s.name)) walk(f.selections, f.on, usedVars, new Set([...seen, s.name]));
        continue;
      }
      if (s.kind === 'inline') {
        const on = s.on ?? type;
        if (!known(on))
          errors.push({ message: `No such type ${on}, so it can't be a fragment condition`, locations: at(s) });
        else walk(s.selections, on, usedVars, seen);
        continue;
      }
      field(s, type, usedVars, seen);
    }
  };

  const field = (f: Field, parent: string, usedVars: Set<string>, seen: Set<string>): void => {
    for (const v of variablesIn(f)) usedVars.add(v);
    if (f.name === '__typename') return;
    const def = OBJECTS[parent]?.[f.name];
    if (!def) {
      errors.push({
        message: `Field '${f.name}' doesn't exist on type '${parent}'`,
        locations: [{ line: f.line, column: f.column }],
        extensions: { code: 'undefinedField' },
      });
      return;
    }
    for (const arg of Object.keys(f.args)) {
      if (!def.args?.[arg]) {
        errors.push({
          message: `Field '${f.name}' doesn't accept argument '${arg}'`,
          locations: [{ line: f.line, column: f.column }],
          extensions: { code: 'argumentNotAccepted' },
        });
      }
    }
    const missing = Object.entries(def.args ?? {}).filter(([k, a]) => a.required && !(k in f.args));
    if (missing.length) {
      errors.push({
        message: `Field '${f.name}' is missing required arguments: ${missing.map(([k]) => k).join(', ')}`,
        locations: [{ line: f.line, column: f.column }],
        extensions: { code: 'missingRequiredArguments' },
      });
    }
    const leaf = LEAVES.has(def.type);
    if (leaf && f.selections) {
      errors.push({
        message: `Selections can't be made on scalars (field '${f.name}' returns ${def.type} but has selections)`,
        locations: [{ line: f.line, column: f.column }],
        extensions: { code: 'selectionMismatch' },
      });
    } else if (!leaf && !f.selections) {
      errors.push({
        message: `Field must have selections (field '${f.name}' returns ${def.type} but has no selections. Did you mean '${f.name} { ... }'?)`,
        locations: [{ line: f.line, column: f.column }],
        extensions: { code: 'selectionMismatch' },
      });
    } else if (f.selections) walk(f.selections, def.type, usedVars, seen);
  };

  for (const d of defs) {
    if (d.kind === 'fragment') {
      if (!known(d.on))
        errors.push({ message: `No such type ${d.on}, so it can't be a fragment condition`, locations: at(d) });
      continue;
    }
    if (d.operation !== 'query' && d.operation !== 'mutation') {
      errors.push({ message: `Schema is not configured for ${d.operation}s` });
      continue;
    }
    const used = new Set<string>();
    walk(d.selections, d.operation === 'query' ? 'Query' : 'Mutation', used, new Set());
    const label = d.name ? `${d.operation} '${d.name}'` : `anonymous ${d.operation}`;
    for (const v of used) {
      if (!d.variables.includes(v)) errors.push({ message: `Variable $${v} is used by ${label} but not declared` });
    }
    for (const v of d.variables) {
      if (!used.has(v)) errors.push({ message: `Variable $${v} is declared by ${label} but not used` });
    }
  }
  for (const name of fragments.keys()) {
    if (!usedFragments.has(name)) errors.push({ message: `Fragment ${name} was defined, but not used` });
  }
  return errors;
}

function variablesIn(f: Field): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    const value = v as { kind: string; name?: string; values?: unknown[]; fields?: Record<string, unknown> };
    if (value.kind === 'variable' && value.name) out.push(value.name);
    value.values?.forEach(visit);
    if (value.fields) Object.values(value.fields).forEach(visit);
  };
  Object.values(f.args).forEach(visit);
  return out;
}

/**
 * Points a query costs, as GitHub's GraphQL rate limit describes: the requests needed to fulfil
 * each connection (a field paged by `first`/`last`), each assumed to reach its limit, summed,
 * divided by 100 and rounded; at least 1. A list of `nodes(ids:)` multiplies what it holds by
 * its length.
 */
export function queryCost(defs: readonly Definition[], variables: Readonly<Record<string, unknown>> = {}): number {
  const fragments = new Map(defs.filter((d): d is Fragment => d.kind === 'fragment').map((f) => [f.name, f]));
  let requests = 0;
  const count = (v: unknown): number | undefined => {
    const value = v as { kind?: string; value?: number; name?: string; values?: unknown[] } | undefined;
    if (value?.kind === 'int') return value.value;
    if (value?.kind === 'list') return value.values?.length;
    if (value?.kind === 'variable' && value.name) {
      const given = variables[value.name];
      return Array.isArray(given) ? given.length : typeof given === 'number' ? given : undefined;
    }
    return undefined;
  };
  const walk = (selections: readonly Selection[], parents: number, seen: Set<string>): void => {
    for (const s of selections) {
      if (s.kind === 'spread') {
        const f = fragments.get(s.name);
        if (f && !seen.has(s.name)) walk(f.selections, parents, new Set([...seen, s.name]));
      } else if (s.kind === 'inline') walk(s.selections, parents, seen);
      else if (s.selections) {
        const page = count(s.args.first) ?? count(s.args.last);
        if (page !== undefined) {
          requests += parents;
          walk(s.selections, parents * page, seen);
        } else {
          const listed = s.name === 'nodes' ? count(s.args.ids) : undefined;
          walk(s.selections, parents * (listed ?? 1), seen);
        }
      }
    }
  };
  for (const d of defs) if (d.kind === 'operation') walk(d.selections, 1, new Set());
  return Math.max(1, Math.round(requests / 100));
}

/** Errors of a query against the whole schema GitHub publishes (`@octokit/graphql-schema`). */
function publishedSchemaErrors(query: string): string[] {
  try {
    return validateAgainstPublished(query).map((e) => e.message);
  } catch (err) {
    return [(err as Error).message];
  }
}

/** Parses and validates a query; answers the document, or GitHub's errors for it. */
export async function checkQuery(query: string): Promise<{ defs: Definition[] } | { errors: GraphqlError[] }> {
  let defs: Definition[];
  try {
    defs = parseDocument(query);
  } catch (err) {
    if (err instanceof GraphqlSyntaxError) return { errors: [{ message: err.message }] };
    throw err;
  }
  const errors = validateDocument(defs);
  for (const message of publishedSchemaErrors(query)) {
    if (!errors.some((e) => e.message === message)) errors.push({ message });
  }
  return errors.length ? { errors } : { defs };
}
