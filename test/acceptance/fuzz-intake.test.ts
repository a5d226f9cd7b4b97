import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { httpLambda } from '../../lib/http/lambda-http.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import type { JobOnRunner } from '../../lib/records.js';
import { MAX_BODY_BYTES } from '../../lib/http/lambda-http.js';
import { createIntake } from '../../lib/intake/webhook-intake.js';
import { parseRunMessage } from '../../lib/webhook/run-message.js';
import { MemoryLog } from '../support/memory-log.js';
import { realExamples, webhookEvent } from '../support/webhooks.js';
import { printSummary } from '../support/faults.js';

const SECRET = 'fuzz-current-secret';
const PREVIOUS = 'fuzz-previous-secret';
const RUNS = 10_000;
/** What the intake documents: 200 ping or duplicate, 202 enqueued or ignored, 400, 401, 413. */
const DOCUMENTED = new Set([200, 202, 400, 401, 413]);

const statuses = new Map<number, number>();
let requests = 0;
let enqueued = 0;
let thrown = 0;

// --- The intake, in process, with an in-memory registry, job store and SQS-like FIFO queue ---

let queue: EmbeddedFifoQueue;
let seen: Set<string>;
let handler: ReturnType<typeof httpLambda>;
const log = new MemoryLog();

beforeEach(() => {
  queue = new EmbeddedFifoQueue({ name: 'fuzz.fifo' });
  seen = new Set();
  const jobs = new Map<number, JobOnRunner>();
  handler = httpLambda(
    createIntake({
      secrets: async () => [SECRET, PREVIOUS],
      deliveries: {
        isSeen: async (guid) => seen.has(guid),
        markSeen: async (guid) => void seen.add(guid),
      },
      // The embedded queue checks ids and bodies with the limits SQS enforces.
      queue: embeddedRunQueue(queue),
      jobs: {
        started: async (job) => void jobs.set(job.jobId, job),
        finished: async (job) => void jobs.delete(job.jobId),
      },
      log,
      metrics: new MemoryMetrics(),
    }),
  );
});

const hmac = (secret: string, bytes: Buffer): string =>
  `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

// --- Generated requests ---

type Signature =
  | 'valid'
  | 'valid-previous'
  | 'wrong-secret'
  | 'random-hex'
  | 'truncated'
  | 'uppercase-hex'
  | 'bare-hex'
  | 'sha1'
  | 'other-body'
  | 'garbage'
  | 'absent';

type Encoding = 'base64' | 'plain' | 'garbled-base64' | 'no-body';

interface FuzzRequest {
  readonly body: Buffer;
  readonly encoding: Encoding;
  readonly signature: Signature;
  readonly event: string | null;
  readonly guid: string | null;
  readonly headerCase: 'lower' | 'canonical' | 'upper';
  readonly randomHex: string;
  readonly garbage: string;
}

const redRun = (): Record<string, unknown> => {
  const p = realExamples('workflow_run').find((e) => e.action === 'completed')!;
  (p.workflow_run as Record<string, unknown>).conclusion = 'failure';
  p.installation = { id: 42, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI=' };
  return p;
};

const MUTABLE_PATHS = [
  ['action'],
  ['workflow_run'],
  ['workflow_run', 'id'],
  ['workflow_run', 'run_attempt'],
  ['workflow_run', 'conclusion'],
  ['workflow_run', 'name'],
  ['workflow_run', 'event'],
  ['workflow_run', 'head_sha'],
  ['workflow_run', 'head_branch'],
  ['workflow_run', 'workflow_id'],
  ['workflow_run', 'pull_requests'],
  ['workflow_run', 'path'],
  ['repository'],
  ['repository', 'id'],
  ['repository', 'name'],
  ['repository', 'owner'],
  ['repository', 'owner', 'login'],
  ['installation'],
  ['installation', 'id'],
  ['workflow'],
] as const;

const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(null, -1, 0, 1.5, 2 ** 53, 1e308, '', '\uffff', '\ufffe', 'a\u0000b', '\ud800', [], {}, [1, 'x']),
  // Rarely, a field far bigger than any queue message may be.
  fc.constant('x'.repeat(300_000)),
);

/** A real completed red run with one field replaced, deleted, or (often) left alone. */
const mutatedRedRun = fc
  .tuple(
    fc.constantFrom(...MUTABLE_PATHS),
    fc.oneof({ weight: 2, arbitrary: fc.constant<'keep'>('keep') }, fc.constant<'delete'>('delete'), oddValue),
  )
  .map(([path, change]) => {
    const p = redRun();
    if (change === 'keep') return Buffer.from(JSON.stringify(p));
    let at: Record<string, unknown> = p;
    for (const k of path.slice(0, -1)) {
      const next = at[k];
      if (typeof next !== 'object' || next === null) return Buffer.from(JSON.stringify(p));
      at = next as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (change === 'delete') delete at[last];
    else at[last] = change;
    return Buffer.from(JSON.stringify(p));
  });

const exampleBody = fc
  .constantFrom(...realExamples('workflow_run'), ...realExamples('workflow_job'), { zen: 'Keep it logically awesome.' })
  .map((p) => Buffer.from(JSON.stringify(p)));

const bodyArb = fc.oneof(
  { weight: 6, arbitrary: mutatedRedRun },
  { weight: 2, arbitrary: exampleBody },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
);

const headerValue = (good: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 14, arbitrary: good },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.string({ minLength: 129, maxLength: 400 }) },
  );

const requestArb: fc.Arbitrary<FuzzRequest> = fc.record({
  body: bodyArb,
  encoding: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Encoding>('base64') },
    { weight: 3, arbitrary: fc.constant<Encoding>('plain') },
    fc.constantFrom<Encoding>('garbled-base64', 'no-body'),
  ),
  signature: fc.oneof(
    { weight: 10, arbitrary: fc.constant<Signature>('valid') },
    { weight: 2, arbitrary: fc.constant<Signature>('valid-previous') },
    fc.constantFrom<Signature>(
      'wrong-secret',
      'random-hex',
      'truncated',
      'uppercase-hex',
      'bare-hex',
      'sha1',
      'other-body',
      'garbage',
      'absent',
    ),
  ),
  event: headerValue(
    fc.constantFrom(
      'workflow_run',
      'workflow_run',
      'workflow_run',
      'workflow_run',
      'workflow_job',
      'ping',
      'push',
      'check_run',
    ),
  ),
  guid: headerValue(fc.uuid()),
  headerCase: fc.constantFrom<FuzzRequest['headerCase']>('lower', 'canonical', 'upper'),
  randomHex: fc.stringMatching(/^[0-9a-f]{64}$/),
  garbage: fc.string({ unit: 'binary', maxLength: 80 }),
});

/** The bytes the intake will read, and the API Gateway v2 event that carries them. */
function toEvent(r: FuzzRequest): { event: APIGatewayProxyEventV2; received: Buffer } {
  let body: string | undefined;
  let isBase64Encoded = false;
  switch (r.encoding) {
    case 'base64':
      body = r.body.toString('base64');
      isBase64Encoded = true;
      break;
    case 'plain':
      body = r.body.toString('utf8');
      break;
    case 'garbled-base64': {
      const b64 = r.body.toString('base64');
      const cut = Math.floor(b64.length / 2);
      body = `${b64.slice(0, cut)}!*\u00e9 ${b64.slice(cut)}`;
      isBase64Encoded = true;
      break;
    }
    case 'no-body':
      body = undefined;
  }
  const received = body === undefined ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  const valid = hmac(SECRET, received);
  const signature: Record<Signature, string | null> = {
    valid,
    'valid-previous': hmac(PREVIOUS, received),
    'wrong-secret': hmac('not-the-secret', received),
    'random-hex': `sha256=${r.randomHex}`,
    truncated: valid.slice(0, 7 + (r.randomHex.charCodeAt(0) % 64)),
    'uppercase-hex': `sha256=${valid.slice(7).toUpperCase()}`,
    'bare-hex': valid.slice(7),
    sha1: `sha1=${createHmac('sha1', SECRET).update(received).digest('hex')}`,
    'other-body': hmac(SECRET, Buffer.concat([received, Buffer.from(' ')])),
    garbage: r.garbage,
    absent: null,
  };
  const name = (n: string): string =>
    r.headerCase === 'lower' ? n.toLowerCase() : r.headerCase === 'upper' ? n.toUpperCase() : n;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (r.event !== null) headers[name('X-GitHub-Event')] = r.event;
  if (r.guid !== null) headers[name('X-GitHub-Delivery')] = r.guid;
  const sig = signature[r.signature];
  if (sig !== null) headers[name('X-Hub-Signature-256')] = sig;
  return { received, event: webhookEvent(headers, { ...(body !== undefined && { body }), isBase64Encoded }, 'fuzz') };
}

/** Sends one request and checks the invariants; answers the status. */
async function exercise(event: APIGatewayProxyEventV2, received: Buffer): Promise<number> {
  const headers = Object.fromEntries(Object.entries(event.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const authentic = [SECRET, PREVIOUS].some((s) => headers['x-hub-signature-256'] === hmac(s, received));
  const sentBefore = queue.stats().sent;
  requests++;
  let res: { statusCode: number; body: string };
  try {
    res = (await handler(event)) as { statusCode: number; body: string };
  } catch (err) {
    thrown++;
    throw err;
  }
  const grew = queue.stats().sent - sentBefore;

  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  enqueued += grew;
  const answer = JSON.parse(res.body) as { reason?: string };
  expect(DOCUMENTED.has(res.statusCode), `status ${res.statusCode}: ${res.body}`).toBe(true);
  // Nothing unsigned is ever enqueued; and an enqueue is always answered as one.
  if (!authentic) expect(grew).toBe(0);
  expect(grew).toBe(answer.reason === 'enqueued' ? 1 : 0);
  if (grew) {
    // The worker can read every message the intake enqueues.
    const [record] = queue.receive(1);
    expect(() => parseRunMessage(record!.body)).not.toThrow();
    queue.delete(record!.receiptHandle);
  }
  return res.statusCode;
}

describe('intake fuzz', () => {
  afterAll(() => {
    const byStatus = Object.fromEntries([...statuses].sort(([a], [b]) => a - b).map(([s, n]) => [`status ${s}`, n]));
    const serverErrors = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    printSummary('intake fuzz', { requests, ...byStatus, enqueued, '5xx': serverErrors, thrown });
  });

  it(`${RUNS.toLocaleString('en')} generated requests (bodies, headers, encodings, signatures): every one a 4xx or a documented 2xx, never a 5xx or a throw, and nothing unsigned enqueued`, async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const { event, received } = toEvent(r);
        await exercise(event, received);
      }),
      { numRuns: RUNS, seed: 20261002, endOnFailure: true },
    );
    // The generators reached every answer, enqueues included.
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 202, 400, 401]));
    expect(enqueued).toBeGreaterThan(RUNS / 50);
  }, 60_000);

  const signedRedRun = (over: { guid?: string; body?: Buffer; encoding?: Encoding }): FuzzRequest => ({
    body: over.body ?? Buffer.from(JSON.stringify(redRun())),
    encoding: over.encoding ?? 'base64',
    signature: 'valid',
    event: 'workflow_run',
    guid: over.guid ?? `regression-${requests}`,
    headerCase: 'canonical',
    randomHex: '0'.repeat(64),
    garbage: '',
  });
  const withRun = (field: string, value: unknown): Buffer => {
    const p = redRun();
    (p.workflow_run as Record<string, unknown>)[field] = value;
    return Buffer.from(JSON.stringify(p));
  };

  it.each([
    ['a delivery GUID with a space', signedRedRun({ guid: 'not a guid' }), 400],
    ['a delivery GUID of 200 characters', signedRedRun({ guid: 'g'.repeat(200) }), 400],
    ['a delivery GUID that is not ASCII', signedRedRun({ guid: 'd\u00e9livrance' }), 400],
    [
      'a workflow name of 300 KB (the message would pass SQS’s 256 KiB)',
      signedRedRun({ body: withRun('name', 'x'.repeat(300_000)) }),
      400,
    ],
    ['a branch holding U+FFFF (SQS refuses it)', signedRedRun({ body: withRun('head_branch', 'main\uffff') }), 400],
    [
      'a body that is not UTF-8, signed over its bytes',
      signedRedRun({ body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }),
      400,
    ],
    ['the same red run, well formed', signedRedRun({}), 202],
  ] as const)('found by the fuzz: a signed red run with %s → %i, never a 5xx', async (_name, r, want) => {
    const { event, received } = toEvent(r);
    expect(await exercise(event, received)).toBe(want);
  });

  it('bodies at the 6 MB limit a Lambda function can receive: up to it a signed red run is enqueued, one byte over it is refused with 413', async () => {
    const run = JSON.stringify(redRun());
    // Padding inside the JSON keeps it a valid payload of exactly the size asked for.
    const ofSize = (n: number): Buffer => Buffer.from(`${run.slice(0, -1)}${' '.repeat(n - run.length)}}`);
    const cases: { size: number; signature: Signature; want: number }[] = [
      { size: MAX_BODY_BYTES, signature: 'valid', want: 202 },
      { size: MAX_BODY_BYTES - 1, signature: 'wrong-secret', want: 401 },
      { size: MAX_BODY_BYTES + 1, signature: 'valid', want: 413 },
      { size: MAX_BODY_BYTES + 1, signature: 'absent', want: 413 },
    ];
    for (const c of cases) {
      const body = ofSize(c.size);
      expect(body.length).toBe(c.size);
      const { event, received } = toEvent({
        body,
        encoding: 'base64',
        signature: c.signature,
        event: 'workflow_run',
        guid: `near-limit-${c.size}-${c.signature}`,
        headerCase: 'canonical',
        randomHex: '0'.repeat(64),
        garbage: '',
      });
      expect(await exercise(event, received)).toBe(c.want);
    }
  }, 60_000);
});
