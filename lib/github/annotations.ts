import type { AnnotationEvidence } from '../classify/classify-job.js';
import type { Annotation, JobFacts } from '../model.js';
import { type RepoRequests, statusOf } from './repo-requests.js';

/** GraphQL's `nodes(ids:)` takes 100 ids; one query asks for several such fields under aliases. */
const NODES_PER_FIELD = 100;
/** Keeps one query's cost modest: 5 × 100 check runs × 50 annotations. */
const FIELDS_PER_QUERY = 5;
/** Annotations one query reads per job; a job with more is read again over REST, all of it. */
export const ANNOTATIONS_PER_JOB = 50;

/**
 * The query for `fields` aliased `nodes` fields. It selects only what the parser below reads
 * (test/github/graphql-documents.test.ts holds that): a check run's `databaseId`, say, is a
 * 32-bit `Int` in GitHub's schema, which today's job ids overflow.
 */
export function annotationsQuery(fields: number): string {
  const vars = Array.from({ length: fields }, (_, i) => `$ids${i}: [ID!]!`).join(', ');
  const body = Array.from({ length: fields }, (_, i) => `  b${i}: nodes(ids: $ids${i}) { ...Annotated }`).join('\n');
  return `query(${vars}) {
${body}
}
fragment Annotated on CheckRun {
  annotations(first: ${ANNOTATIONS_PER_JOB}) { pageInfo { hasNextPage } nodes { annotationLevel title message } }
}`;
}

type AnnotatedNode =
  | {
      annotations?: {
        pageInfo?: { hasNextPage?: boolean };
        nodes?: { annotationLevel: string; title: string | null; message: string }[];
      };
    }
  | null
  | undefined;

/**
 * Annotations of many jobs (jobs are check runs) in one GraphQL query for up to 500 jobs,
 * 100 per aliased `nodes` field. Jobs GraphQL could not answer are missing from the map: the
 * caller reads them over REST.
 */
export async function annotationsByGraphql(
  calls: RepoRequests,
  jobs: readonly JobFacts[],
): Promise<Map<number, Annotation[]>> {
  const out = new Map<number, Annotation[]>();
  const batches: JobFacts[][] = [];
  for (let i = 0; i < jobs.length; i += NODES_PER_FIELD) batches.push(jobs.slice(i, i + NODES_PER_FIELD));
  for (let q = 0; q < batches.length; q += FIELDS_PER_QUERY) {
    const group = batches.slice(q, q + FIELDS_PER_QUERY);
    const res = await calls.graphql(`POST ${calls.graphqlUrl}`, {
      query: annotationsQuery(group.length),
      variables: Object.fromEntries(group.map((b, i) => [`ids${i}`, b.map((j) => j.nodeId)])),
    });
    const data = (res.data as { data?: Record<string, unknown[] | undefined> }).data ?? {};
    group.forEach((batch, i) => {
      const nodes = data[`b${i}`] ?? [];
      batch.forEach((job, k) => {
        const node = nodes[k] as AnnotatedNode;
        const list = node?.annotations?.nodes;
        // A full page may not be all of them (a runner-loss annotation often comes last): REST reads the rest.
        if (!list || node?.annotations?.pageInfo?.hasNextPage !== false) return;
        out.set(
          job.id,
          list.map((a) => ({ level: a.annotationLevel.toLowerCase(), title: a.title, message: a.message })),
        );
      });
    });
  }
  return out;
}

/**
 * One job's annotations over REST, paged until more than `cap` are read: a job with more is
 * `tooMany` (cut short), so its cost stays at `cap / 100 + 1` requests however many it has.
 * 403 (unless rate-limited), 404 and 410 mean "unreadable", not a fault.
 */
export async function annotationsByRest(calls: RepoRequests, jobId: number, cap: number): Promise<AnnotationEvidence> {
  const out: Annotation[] = [];
  try {
    for await (const page of calls.pages('GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations', {
      check_run_id: jobId,
    })) {
      for (const a of page.data as { annotation_level?: string; title?: string | null; message?: string }[]) {
        out.push({ level: a.annotation_level ?? 'notice', title: a.title ?? null, message: a.message ?? '' });
      }
      if (out.length > cap) return { tooMany: cap };
    }
    return out;
  } catch (err) {
    const status = statusOf(err);
    if (status === 403 || status === 404 || status === 410) return { unavailable: status };
    throw err;
  }
}
