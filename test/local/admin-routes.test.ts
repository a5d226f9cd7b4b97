/**
 * The local runtime's operator routes as handlers (API Gateway v2 events in, answers out), on a
 * real ledger in the embedded DynamoDB and the embedded queue: what each route reads from its
 * request, what it refuses and with which status, and what a replay sends.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeReplay } from '../../lib/compose/replay.js';
import { adminRoutes } from '../../lib/local/admin-routes.js';
import { EmbeddedFifoQueue } from '../../lib/queue/embedded/fifo-queue.js';
import { embeddedRunQueue } from '../../lib/queue/embedded/queue.js';
import type { RunMessage } from '../../lib/model.js';
import { type Harness, startHarness } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';

const event = (over: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 =>
  ({ rawQueryString: '', headers: {}, isBase64Encoded: false, ...over }) as APIGatewayProxyEventV2;

const replayBody = (message: unknown, force?: boolean): APIGatewayProxyEventV2 =>
  event({
    body: Buffer.from(JSON.stringify({ message, ...(force !== undefined && { force }) })).toString('base64'),
    isBase64Encoded: true,
  });

const answer = (r: unknown) => {
  const res = r as APIGatewayProxyStructuredResultV2;
  return { status: res.statusCode, body: JSON.parse(res.body ?? 'null') as Record<string, unknown> };
};

describe('the operator routes of the local runtime', () => {
  let h: Harness;
  let queue: EmbeddedFifoQueue;
  let routes: ReturnType<typeof adminRoutes>;
  const log = new MemoryLog();
  let decided: { web: RunMessage; api: RunMessage; claimed: RunMessage; fresh: RunMessage };
  let redrives = 0;

  const decide = async (msg: RunMessage, decision: 'genuine_failure' | 'retried', reason: string) => {
    await h.ledger.attempts.claim(msg, 'w', 60_000);
    await h.ledger.attempts.finalise(msg, 'w', decision, reason);
  };
  const sent = (): RunMessage[] => queue.receive(10).map((r) => JSON.parse(r.body) as RunMessage);

  beforeAll(async () => {
    h = await startHarness();
    const runOf = (repo: string) =>
      h.message(h.sim.addRun({ repo, jobs: [{ name: 'test', conclusion: 'failure' }] }).id);
    decided = { web: runOf('acme/web'), api: runOf('acme/api'), claimed: runOf('acme/web'), fresh: runOf('acme/web') };
    await decide(decided.web, 'genuine_failure', 'job "test" failed for a real reason');
    await decide(decided.api, 'retried', 'the runner was lost');
    await h.ledger.attempts.claim(decided.claimed, 'worker-elsewhere', 60_000);
    queue = new EmbeddedFifoQueue({ name: 'reprise-runs.fifo' });
    routes = adminRoutes({
      ledger: h.ledger,
      replay: composeReplay({ attempts: h.ledger.attempts, queue: embeddedRunQueue(queue), log }),
      redrive: async () => ({ redriven: ++redrives, released: 0 }),
      log,
    });
  });
  afterAll(async () => h?.close());

  it('GET /decisions lists decided attempts without their stored message, narrowed by repo and limit', async () => {
    const all = answer(await routes['GET /decisions'](event()));
    expect(all.status).toBe(200);
    const listed = all.body.decisions as Record<string, unknown>[];
    expect(listed.map((d) => d.reason).sort()).toEqual(['job "test" failed for a real reason', 'the runner was lost']);
    for (const d of listed) expect(d).not.toHaveProperty('message');

    const api = answer(await routes['GET /decisions'](event({ rawQueryString: 'repo=acme/api' })));
    expect((api.body.decisions as Record<string, unknown>[]).map((d) => d.decision)).toEqual(['retried']);
    const one = answer(await routes['GET /decisions'](event({ rawQueryString: 'limit=1' })));
    expect(one.body.decisions).toHaveLength(1);
    const future = answer(await routes['GET /decisions'](event({ rawQueryString: `since=${Date.now() + 3_600_000}` })));
    expect(future.body.decisions).toEqual([]);
  });

  it.each([
    ['since=yesterday', 'since: expected a whole number, got "yesterday"'],
    ['limit=-1', 'limit: expected a whole number, got "-1"'],
    ['limit=2.5', 'limit: expected a whole number, got "2.5"'],
  ])('GET /decisions?%s is 400 naming the parameter and its value', async (query, error) => {
    expect(answer(await routes['GET /decisions'](event({ rawQueryString: query })))).toEqual({
      status: 400,
      body: { error },
    });
  });

  it('GET /report-facts needs since (epoch ms): 400 without it or with a bad one, the facts with it', async () => {
    expect(answer(await routes['GET /report-facts'](event()))).toEqual({
      status: 400,
      body: { error: 'since: required (epoch ms)' },
    });
    expect(answer(await routes['GET /report-facts'](event({ rawQueryString: 'since=1h' }))).status).toBe(400);
    const facts = answer(await routes['GET /report-facts'](event({ rawQueryString: 'since=0' })));
    expect(facts.status).toBe(200);
    expect(JSON.stringify(facts.body)).toContain('retried');
  });

  it('POST /replay of an undecided attempt is 202 and sends the message to the queue, in its run group', async () => {
    const res = answer(await routes['POST /replay'](replayBody(decided.fresh)));
    expect(res).toEqual({ status: 202, body: { kind: 'enqueue' } });
    const [message, ...rest] = sent();
    expect(rest).toEqual([]);
    expect(message).toEqual(decided.fresh);
    expect(log.lines.some((l) => l.message === 'replay enqueued' && l.run_id === decided.fresh.runId)).toBe(true);
  });

  it('POST /replay of a decided attempt is 200 with its decision, and nothing is sent', async () => {
    const res = answer(await routes['POST /replay'](replayBody(decided.web)));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'already_decided', decision: 'genuine_failure' });
    expect(sent()).toEqual([]);
  });

  it('POST /replay --force of a re-run attempt is 409 and of a held claim 409: nothing is sent', async () => {
    const rerun = answer(await routes['POST /replay'](replayBody(decided.api, true)));
    expect(rerun.status).toBe(409);
    expect(rerun.body).toMatchObject({ kind: 'refused' });
    expect(String(rerun.body.reason)).toContain(`Replay attempt ${decided.api.runAttempt + 1} instead`);
    const held = answer(await routes['POST /replay'](replayBody(decided.claimed, true)));
    expect(held.status).toBe(409);
    expect(held.body).toMatchObject({ kind: 'in_progress' });
    expect(String(held.body.reason)).toContain('is claimed by worker-elsewhere');
    expect(sent()).toEqual([]);
  });

  it('POST /replay --force of a genuine failure gives the record back and sends it again', async () => {
    const res = answer(await routes['POST /replay'](replayBody(decided.web, true)));
    expect(res).toEqual({ status: 202, body: { kind: 'enqueue', released: 'genuine_failure' } });
    expect(sent()).toEqual([decided.web]);
    expect(await h.ledger.attempts.get(decided.web.repository.id, decided.web.runId, decided.web.runAttempt)).toBe(
      undefined,
    );
  });

  it.each([
    ['a body that is not JSON', event({ body: '{"message":' })],
    ['a message that is not a run message', replayBody({ runId: 'seven' })],
    ['no message at all', event({ body: '{}' })],
  ])('POST /replay with %s is 400 saying what it expects', async (_what, request) => {
    const res = answer(await routes['POST /replay'](request));
    expect(res.status).toBe(400);
    expect(String(res.body.error)).toMatch(/^expected \{"message": <run message>, "force"\?: boolean\}: /);
    expect(sent()).toEqual([]);
  });

  it('POST /redrive answers what the redrive did; a runtime without a dead-letter queue answers 404', async () => {
    expect(answer(await routes['POST /redrive'](event()))).toEqual({ status: 200, body: { redriven: 1, released: 0 } });
    const without = adminRoutes({
      ledger: h.ledger,
      replay: composeReplay({ attempts: h.ledger.attempts, queue: embeddedRunQueue(queue), log }),
      log,
    });
    expect(answer(await without['POST /redrive'](event()))).toEqual({
      status: 404,
      body: { error: 'this runtime has no dead-letter queue' },
    });
  });

  describe('pause and resume (reprise pause, reprise resume)', () => {
    const post = (body: unknown) => event({ body: typeof body === 'string' ? body : JSON.stringify(body) });

    it('POST /pause writes a pause that GET /pauses lists and POST /resume lifts, each logged', async () => {
      const paused = answer(
        await routes['POST /pause'](post({ scope: 'Acme', by: 'ops@box', reason: 'drill', forMs: 60_000 })),
      );
      expect(paused.status).toBe(200);
      expect(paused.body.pause).toMatchObject({ scope: 'acme', by: 'ops@box', reason: 'drill' });
      const listed = answer(await routes['GET /pauses'](event()));
      expect(listed.body.pauses).toEqual([expect.objectContaining({ scope: 'acme' })]);
      expect(log.named('paused by the operator')).toEqual([expect.objectContaining({ scope: 'acme' })]);
      const resumed = answer(await routes['POST /resume'](post({ scope: 'acme' })));
      expect(resumed.body.resumed).toMatchObject({ scope: 'acme', reason: 'drill' });
      expect(answer(await routes['POST /resume'](post({ scope: 'acme' }))).body).toEqual({ resumed: null });
      expect(answer(await routes['GET /pauses'](event())).body.pauses).toEqual([]);
    });

    it.each([
      ['not JSON', 'nope', /body is not JSON/],
      ['no reason', { scope: '*', by: 'ops' }, /the reason not empty/],
      ['an empty reason', { scope: '*', by: 'ops', reason: ' ' }, /the reason not empty/],
      ['a run for a scope', { scope: 'acme/web#12', by: 'ops', reason: 'x' }, /each a string/],
      ['a negative forMs', { scope: '*', by: 'ops', reason: 'x', forMs: -5 }, /forMs is a whole number/],
    ])('POST /pause with %s is refused 400', async (_what, body, error) => {
      const res = answer(await routes['POST /pause'](post(body)));
      expect(res.status).toBe(400);
      expect(String(res.body.error)).toMatch(error);
    });

    it('POST /resume without a scope is refused 400; a runtime without pauses answers 404', async () => {
      expect(answer(await routes['POST /resume'](post({}))).status).toBe(400);
      const bare = adminRoutes({
        ledger: { decisions: h.ledger.decisions, report: h.ledger.report },
        replay: async () => ({ kind: 'enqueue' }),
        log,
      });
      expect(answer(await bare['GET /pauses'](event())).status).toBe(404);
    });
  });
});
