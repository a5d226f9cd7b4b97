import type { APIGatewayProxyEventV2, LambdaFunctionURLEvent } from 'aws-lambda';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpLambda } from '../../lib/http/lambda-http.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import { MAX_BODY_BYTES } from '../../lib/http/lambda-http.js';
import { createIntake, signatureMatches } from '../../lib/intake/webhook-intake.js';
import { MemoryLog } from '../support/memory-log.js';
import { realExamples, webhookEvent } from '../support/webhooks.js';

const SECRET = 'current-secret';
const PREVIOUS = 'previous-secret';

let dynamo: EmbeddedDynamo;
let queue: EmbeddedFifoQueue;
let log: MemoryLog;
let metrics: MemoryMetrics;
let handler: ReturnType<typeof httpLambda>;
let guidSeq = 0;

beforeAll(async () => {
  dynamo = await startDynamo({ table: 'intake-test' });
});
afterAll(async () => dynamo.close());
beforeEach(() => {
  queue = new EmbeddedFifoQueue({ name: 'intake-test.fifo' });
  log = new MemoryLog();
  metrics = new MemoryMetrics();
  handler = httpLambda(
    createIntake({
      secrets: async () => [SECRET, PREVIOUS],
      deliveries: openLedger(dynamo.client, 'intake-test').deliveries,
      queue: embeddedRunQueue(queue),
      log,
      metrics,
    }),
  );
});

function failedRunPayload(conclusion = 'failure'): Record<string, unknown> {
  const p = realExamples('workflow_run').find((e) => e.action === 'completed')!;
  (p.workflow_run as Record<string, unknown>).conclusion = conclusion;
  p.installation = { id: 99, node_id: 'x' };
  return p;
}

interface Req {
  event?: string | null;
  guid?: string | null;
  body: string | Buffer;
  signature?: string | null;
  secret?: string;
  functionUrl?: boolean;
}

/** Real API Gateway v2 and function URL event shapes; the body base64-encoded, as binary payloads arrive. */
async function call(r: Req) {
  const raw = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (r.event !== null) headers['X-GitHub-Event'] = r.event ?? 'workflow_run';
  if (r.guid !== null) headers['X-GitHub-Delivery'] = r.guid ?? `guid-${++guidSeq}`;
  const sig = r.signature === undefined ? await sign(r.secret ?? SECRET, raw.toString('utf8')) : r.signature;
  if (sig !== null) headers['X-Hub-Signature-256'] = sig;
  const apiGateway = webhookEvent(headers, { body: raw.toString('base64'), isBase64Encoded: true });
  // A function URL event is the same shape with the `$default` route.
  const event = (
    r.functionUrl
      ? {
          ...apiGateway,
          routeKey: '$default',
          requestContext: { ...apiGateway.requestContext, routeKey: '$default', authorizer: undefined },
        }
      : apiGateway
  ) as APIGatewayProxyEventV2 & LambdaFunctionURLEvent;
  const res = (await handler(event)) as { statusCode: number; body: string };
  return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
}

describe('intake answers', () => {
  it('ping → 200', async () => {
    const res = await call({ event: 'ping', body: JSON.stringify({ zen: 'Design for failure.', hook_id: 1 }) });
    expect(res.status).toBe(200);
    expect(queue.size()).toBe(0);
  });

  it.each(['failure', 'cancelled'])('workflow_run completed with conclusion %s → enqueued, 202', async (conclusion) => {
    const res = await call({ body: JSON.stringify(failedRunPayload(conclusion)) });
    expect(res).toMatchObject({ status: 202, body: { reason: 'enqueued' } });
    const [record] = queue.receive(1);
    const msg = JSON.parse(record!.body);
    expect(msg).toMatchObject({ conclusion, installationId: 99, runAttempt: 1 });
    expect(Date.parse(msg.createdAt)).not.toBeNaN();
    expect(record!.attributes.MessageGroupId).toBe(`${msg.repository.id}#${msg.runId}`);
    expect(record!.attributes.MessageDeduplicationId).toBe(msg.deliveryId);
    // The message is small: ids and names, never the raw payload.
    expect(Object.keys(msg).sort()).toEqual(
      [
        'v',
        'deliveryId',
        'installationId',
        'repository',
        'runId',
        'runAttempt',
        'workflow',
        'event',
        'headSha',
        'headBranch',
        'conclusion',
        'pullRequests',
        'createdAt',
        'runNumber',
      ].sort(),
    );
  });

  it.each([
    ['another event', 'push', { ref: 'refs/heads/main' }, 'ignored: event push'],
    ['another action', 'workflow_run', { ...failedRunPayload(), action: 'requested' }, 'ignored: action requested'],
    ['a green run', 'workflow_run', failedRunPayload('success'), 'ignored: conclusion success'],
  ])('%s → 202 ignored, nothing enqueued', async (_name, event, payload, reason) => {
    const res = await call({ event, body: JSON.stringify(payload) });
    expect(res).toMatchObject({ status: 202, body: { reason } });
    expect(queue.size()).toBe(0);
  });

  it.each([
    ['missing signature', null],
    ['wrong signature', 'sha256=' + '0'.repeat(64)],
    ['truncated signature', 'sha256=abc'],
    ['sha1 signature', 'sha1=' + '0'.repeat(40)],
  ])('%s → 401, nothing enqueued, no payload logged', async (_name, signature) => {
    const payload = failedRunPayload();
    const res = await call({ body: JSON.stringify(payload), signature });
    expect(res.status).toBe(401);
    expect(queue.size()).toBe(0);
    const logged = JSON.stringify(log.lines);
    expect(logged).not.toContain((payload.workflow_run as { head_sha: string }).head_sha);
    expect(logged).not.toContain((payload.repository as { full_name: string }).full_name);
    expect(metrics.get('SignatureFailure')).toBe(1);
  });

  it('a signature made with the wrong secret → 401', async () => {
    const res = await call({ body: JSON.stringify(failedRunPayload()), secret: 'someone-else' });
    expect(res.status).toBe(401);
  });

  it('a signature made with the previous secret is accepted during rotation', async () => {
    const res = await call({ body: JSON.stringify(failedRunPayload()), secret: PREVIOUS });
    expect(res.status).toBe(202);
    expect(queue.size()).toBe(1);
  });

  it.each([
    ['X-GitHub-Event', { event: null }],
    ['X-GitHub-Delivery', { guid: null }],
  ])('missing %s → 400', async (_h, over) => {
    const res = await call({ body: JSON.stringify(failedRunPayload()), ...over });
    expect(res.status).toBe(400);
    expect(queue.size()).toBe(0);
  });

  it.each([
    ['not JSON', 'not json at all {'],
    ['a JSON array', '[1,2,3]'],
    [
      'a workflow_run without its run',
      JSON.stringify({ action: 'completed', workflow_run: { conclusion: 'failure' } }),
    ],
    [
      'a run id that is a string',
      JSON.stringify({
        ...failedRunPayload(),
        workflow_run: { ...(failedRunPayload().workflow_run as object), id: 'x' },
      }),
    ],
  ])('body %s → 400', async (_name, body) => {
    const res = await call({ body });
    expect(res.status).toBe(400);
    expect(queue.size()).toBe(0);
  });

  it('a run created_at that is not a timestamp → 400 naming the field; one without it is enqueued without it', async () => {
    const run = failedRunPayload().workflow_run as Record<string, unknown>;
    const bad = await call({
      body: JSON.stringify({ ...failedRunPayload(), workflow_run: { ...run, created_at: 'soon' } }),
    });
    expect(bad).toMatchObject({
      status: 400,
      body: { error: 'not a workflow_run payload: workflow_run.created_at: expected a timestamp' },
    });
    expect(queue.size()).toBe(0);
    const { created_at: _dropped, ...without } = run;
    const ok = await call({ body: JSON.stringify({ ...failedRunPayload(), workflow_run: without }) });
    expect(ok.status).toBe(202);
    expect(JSON.parse(queue.receive(1)[0]!.body)).not.toHaveProperty('createdAt');
  });

  it('a body that is not UTF-8 → 400 before any decoding, nothing enqueued', async () => {
    const res = await call({ body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), signature: 'sha256=' + '0'.repeat(64) });
    expect(res).toMatchObject({ status: 400, body: { error: 'body is not UTF-8' } });
    expect(queue.size()).toBe(0);
  });

  it('body over the 6 MB a Lambda function can receive → 413', async () => {
    const res = await call({ body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20), signature: 'sha256=' + '0'.repeat(64) });
    expect(res.status).toBe(413);
    expect(queue.size()).toBe(0);
  });

  it('a delivery GUID already seen → 200 duplicate, nothing enqueued', async () => {
    const body = JSON.stringify(failedRunPayload());
    expect((await call({ body, guid: 'same-guid' })).status).toBe(202);
    const again = await call({ body, guid: 'same-guid' });
    expect(again).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
    expect(queue.stats().sent).toBe(1);
  });

  it('a Lambda function URL event is served like the HTTP API', async () => {
    const res = await call({ body: JSON.stringify(failedRunPayload()), functionUrl: true });
    expect(res.status).toBe(202);
  });

  it('GitHub docs\' test vector verifies (secret "It\'s a Secret to Everybody", body "Hello, World!")', async () => {
    const sig = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await signatureMatches(["It's a Secret to Everybody"], 'Hello, World!', sig)).toBe(true);
    expect(await signatureMatches(["It's a Secret to Everybody"], 'Hello, World?', sig)).toBe(false);
  });
});

describe('real payloads from @octokit/webhooks-examples', () => {
  it.each(
    realExamples('workflow_run').map(
      (p, i) => [i, p.action, (p.workflow_run as { conclusion: string | null }).conclusion, p] as const,
    ),
  )('example %i (%s, %s) is ignored: none is a completed red run', async (_i, _action, _conclusion, payload) => {
    const res = await call({ body: JSON.stringify(payload) });
    expect(res.status).toBe(202);
    expect(res.body.reason).toMatch(/^ignored: /);
    expect(queue.size()).toBe(0);
  });

  it('every completed example turned red is enqueued, installation or not', async () => {
    const completed = realExamples('workflow_run').filter((p) => p.action === 'completed');
    for (const p of completed) {
      (p.workflow_run as Record<string, unknown>).conclusion = 'failure';
      const res = await call({ body: JSON.stringify(p) });
      expect(res.status).toBe(202);
    }
    expect(queue.stats().sent).toBe(completed.length);
  });

  it.each(realExamples('workflow_job').map((p, i) => [i, p.action, p] as const))(
    'workflow_job example %i (%s) is accepted without enqueuing a run',
    async (_i, _action, payload) => {
      const res = await call({ event: 'workflow_job', body: JSON.stringify(payload) });
      expect(res.status).toBe(202);
      expect(queue.size()).toBe(0);
    },
  );
});
