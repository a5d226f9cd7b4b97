/**
 * Issue 32, item 5: every GraphQL document reprise sends is valid against GitHub's published
 * schema (`@octokit/graphql-schema`), and asks only for what is read. The second is checked
 * against the code itself: an answer holding every selected field, typed by the schema, is
 * handed to the real parser with each object watched, and every selected scalar must be read.
 */
import { schema, validate } from '@octokit/graphql-schema';
import { describe, expect, it } from 'vitest';
import { annotationsByGraphql, annotationsQuery } from '../../lib/github/annotations.js';
import {
  ENQUEUE_MUTATION,
  enqueuePullRequest,
  MERGE_GROUP_QUERY,
  readMergeGroup,
} from '../../lib/github/merge-queue.js';
import type { RepoApi } from '../../lib/github/repo-api.js';
import type { RepoRequests } from '../../lib/github/repo-requests.js';
import type { JobFacts } from '../../lib/model.js';
import { failedJob } from '../support/fixtures.js';
import { type Definition, type Fragment, parseDocument, type Selection } from '../sim/graphql-parse.js';

interface TypeRef {
  readonly kind: string;
  readonly name: string | null;
  readonly ofType: TypeRef | null;
}
interface SchemaType {
  readonly kind: string;
  readonly name: string;
  readonly fields: { readonly name: string; readonly type: TypeRef }[] | null;
  readonly enumValues: { readonly name: string }[] | null;
}

const TYPES = new Map(
  (schema.json as { __schema: { types: SchemaType[] } }).__schema.types.map((t) => [t.name, t] as const),
);

/** The named type under lists and non-nulls, and whether a list is among them. */
function unwrap(t: TypeRef): { name: string; list: boolean } {
  let list = false;
  let at: TypeRef | null = t;
  while (at && !at.name) {
    if (at.kind === 'LIST') list = true;
    at = at.ofType;
  }
  return { name: at!.name!, list };
}

/** A value of a scalar or enum type, as GitHub could answer it. */
function leafValue(type: string): unknown {
  const t = TYPES.get(type);
  if (t?.kind === 'ENUM') return t.enumValues![0]!.name;
  switch (type) {
    case 'Boolean':
      // `false`: a full page (`hasNextPage: true`) would leave the answer for REST to read.
      return false;
    case 'Int':
      return 1;
    case 'GitObjectID':
      return 'a'.repeat(40);
    default:
      return `${type.toLowerCase()}-value`;
  }
}

/**
 * An answer to `selections` on `type` holding every field selected (fragments and inline
 * fragments on the concrete type taken whole, one element per list), each object watched: a
 * read of a selected scalar adds its path to `read`; `selected` gets every selected scalar's path.
 */
function answerTo(
  selections: readonly Selection[],
  type: string,
  fragments: ReadonlyMap<string, Fragment>,
  path: string,
  selected: Set<string>,
  read: Set<string>,
): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  const leaves = new Map<string, string>();
  const flat = (sels: readonly Selection[]): Selection[] =>
    sels.flatMap((s) =>
      s.kind === 'field' ? [s] : flat(s.kind === 'spread' ? fragments.get(s.name)!.selections : s.selections),
    );
  const concrete = (sels: readonly Selection[]): string | undefined =>
    sels
      .map((s) => (s.kind === 'spread' ? fragments.get(s.name)!.on : s.kind === 'inline' ? s.on : null))
      .find(Boolean) ?? undefined;
  for (const s of flat(selections)) {
    if (s.kind !== 'field') continue;
    const key = s.alias ?? s.name;
    const on = TYPES.get(type)!;
    const field = on.fields?.find((f) => f.name === s.name);
    if (!field) throw new Error(`${type}.${s.name} is not in the schema`);
    const { name, list } = unwrap(field.type);
    const at = path ? `${path}.${key}` : key;
    let value: unknown;
    if (s.selections) {
      const objectType = TYPES.get(name)!.kind === 'OBJECT' ? name : (concrete(s.selections) ?? name);
      const one = answerTo(s.selections, objectType, fragments, at, selected, read);
      value = list ? [one] : one;
    } else {
      const leaf = leafValue(name);
      value = list ? [leaf] : leaf;
      leaves.set(key, at);
      selected.add(at);
    }
    obj[key] = value;
  }
  return new Proxy(obj, {
    get(target, key, receiver) {
      if (typeof key === 'string' && leaves.has(key)) read.add(leaves.get(key)!);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** The answer to a document, and the sets its reading fills. */
function watchedAnswer(document: string) {
  const defs: Definition[] = parseDocument(document);
  const fragments = new Map(defs.filter((d): d is Fragment => d.kind === 'fragment').map((f) => [f.name, f]));
  const op = defs.find((d) => d.kind === 'operation')!;
  const root = op.kind === 'operation' && op.operation === 'mutation' ? 'Mutation' : 'Query';
  const selected = new Set<string>();
  const read = new Set<string>();
  const data = answerTo(op.selections, root, fragments, '', selected, read);
  return { data, selected, read };
}

const job = (id: number): JobFacts => failedJob({ id });

/** Each document with the code that reads its answer; `parsed` says the answer was taken in. */
const DOCUMENTS = [
  {
    name: 'the annotations query (one nodes field)',
    document: annotationsQuery(1),
    async parse(data: unknown) {
      const calls = {
        graphqlUrl: 'https://api.github.invalid/graphql',
        graphql: () => Promise.resolve({ data: { data } }),
      } as unknown as RepoRequests;
      const out = await annotationsByGraphql(calls, [job(1)]);
      return out.get(1)?.length === 1;
    },
  },
  {
    name: 'the annotations query (five nodes fields)',
    document: annotationsQuery(5),
    async parse(data: unknown) {
      const calls = {
        graphqlUrl: 'https://api.github.invalid/graphql',
        graphql: () => Promise.resolve({ data: { data } }),
      } as unknown as RepoRequests;
      const jobs = Array.from({ length: 500 }, (_, i) => job(i + 1));
      const out = await annotationsByGraphql(calls, jobs);
      // One node answered per field: the first job of each hundred.
      return [1, 101, 201, 301, 401].every((id) => out.get(id)?.length === 1);
    },
  },
  {
    name: 'the merge-group query',
    document: MERGE_GROUP_QUERY,
    async parse(data: unknown) {
      const api = { graphqlDocument: () => Promise.resolve({ data }) } as unknown as RepoApi;
      const facts = await readMergeGroup(api, { owner: 'acme', name: 'widgets' }, 7, 'b'.repeat(40));
      return facts.pull !== null && facts.parents?.length === 1;
    },
  },
  {
    name: 'the enqueue mutation',
    document: ENQUEUE_MUTATION,
    async parse(data: unknown) {
      const api = { graphqlDocument: () => Promise.resolve({ data }) } as unknown as RepoApi;
      return (await enqueuePullRequest(api, 'PR_1', 'c'.repeat(40))).accepted;
    },
  },
] as const;

describe('item 5: GraphQL documents ask GitHub only for what is read', () => {
  it.each(DOCUMENTS)('$name is valid against GitHub’s published schema', ({ document }) => {
    expect(validate(document).map((e) => e.message)).toEqual([]);
  });

  it.each(DOCUMENTS)('$name: every selected scalar is read by the code that reads the answer', async (d) => {
    const { data, selected, read } = watchedAnswer(d.document);
    expect(selected.size).toBeGreaterThan(0);
    expect(await d.parse(data)).toBe(true);
    expect([...selected].filter((p) => !read.has(p))).toEqual([]);
  });

  it('the check: a selected field the parser never reads is caught (databaseId, a 32-bit Int that job ids overflow)', async () => {
    const withId = annotationsQuery(1).replace(
      'fragment Annotated on CheckRun {',
      'fragment Annotated on CheckRun {\n  databaseId',
    );
    expect(validate(withId)).toEqual([]);
    const { data, selected, read } = watchedAnswer(withId);
    await DOCUMENTS[0].parse(data);
    expect([...selected].filter((p) => !read.has(p))).toEqual(['b0.databaseId']);
  });
});
