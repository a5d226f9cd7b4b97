import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerSignalLookup } from '../../lib/signals/runner-lookup.js';
import type { HttpRequest } from '../../lib/http/lambda-http.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { MemoryMetrics } from '../../lib/obs/memory-metrics.js';
import {
  createSignalIntake,
  derivedEventId,
  parseSignalPost,
  recordedKind,
  RETRY_HORIZON_MS,
} from '../../lib/intake/signal-intake.js';
import { signalSignature } from '../../lib/intake/signal-auth.js';
import { MemoryLog } from '../support/memory-log.js';
import { freshTable } from '../signals/fixtures.js';

const SECRET = 'cUrReNt-signal-secret-0123456789';
const PREVIOUS = 'pReViOuS-signal-secret-9876543210';
const NOW = Date.parse('2026-10-02T16:15:00Z');

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: 'unused' });
});
afterAll(async () => {
  await dynamo?.close();
});

async function setup(secrets: () => Promise<string[]> = async () => [SECRET, PREVIOUS]) {
  const clock = { t: NOW };
  const t = await freshTable(dynamo, 24 * 3600, () => clock.t);
  const log = new MemoryLog();
  const metrics = new MemoryMetrics();
  const intake = createSignalIntake({ secrets, store: t.store, log, metrics, now: () => clock.t });
  return { ...t, clock, log, metrics, intake };
}

const request = (body: string | Buffer, headers: Record<string, string> = {}): HttpRequest => ({
  method: 'POST',
  path: '/signals',
  headers,
  body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
});
const bearer = (body: unknown, secret = SECRET): HttpRequest =>
  request(JSON.stringify(body), { authorization: `Bearer ${secret}`, 'content-type': 'application/json' });
const TS = String(NOW / 1000);
/** An HMAC post as agents sign it: over `<timestamp>.<body>`, the timestamp in its own header. */
const signed = (raw: string, secret = SECRET, ts = TS): HttpRequest =>
  request(raw, { 'x-reprise-timestamp': ts, 'x-reprise-signature-256': signalSignature(secret, ts, raw) });

const NTH_POST = {
  runners: ['arc-runner-set-x7k2p-runner-9fq4m', 'ip-10-0-1-23.ec2.internal'],
  instance_id: 'i-0123456789abcdef0',
  kind: 'node-termination',
  reason: 'SPOT_ITN: Spot ITN received. Instance will be interrupted at 2026-10-02T16:17:00Z',
};

describe('POST /signals: authentication', () => {
  it('accepts a good bearer token and records every runner and the instance id', async () => {
    const { intake, items, metrics } = await setup();
    const res = await intake(bearer(NTH_POST));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ recorded: 3, event_time: new Date(NOW).toISOString() });
    const signals = (await items()).filter((i) => String(i.pk).startsWith('RUNNER#'));
    expect(signals.map((i) => i.runnerKey).sort()).toEqual([...NTH_POST.runners, NTH_POST.instance_id].sort());
    for (const s of signals) {
      expect(s).toMatchObject({
        kind: 'external',
        source: 'agent',
        instanceId: NTH_POST.instance_id,
        reason: `node-termination: ${NTH_POST.reason}`,
        eventId: res.body.event_id,
      });
    }
    expect(metrics.get('SignalRecorded{kind=external}')).toBe(3);
  });

  it('accepts a good HMAC of the raw body', async () => {
    const { intake, items } = await setup();
    const raw = JSON.stringify({
      runners: ['runner-a'],
      kind: 'terminated',
      event_id: 'hook-42',
      time: '2026-10-02T16:14:00Z',
    });
    const res = await intake(signed(raw));
    expect(res).toEqual({
      status: 202,
      body: { recorded: 1, event_id: 'hook-42', event_time: '2026-10-02T16:14:00.000Z' },
    });
    // The record, and the signature's use, which refuses a replay.
    const all = await items();
    expect(all.filter((i) => String(i.pk).startsWith('RUNNER#'))).toEqual([
      expect.objectContaining({ runnerKey: 'runner-a', kind: 'terminated', eventTime: '2026-10-02T16:14:00.000Z' }),
    ]);
    expect(all.filter((i) => String(i.pk).startsWith('SIGNALSIG#'))).toHaveLength(1);
  });

  it('accepts the previous secret during a rotation', async () => {
    const { intake } = await setup();
    expect((await intake(bearer({ runners: ['r'], kind: 'external' }, PREVIOUS))).status).toBe(202);
    expect((await intake(signed('{"runners":["r2"],"kind":"external"}', PREVIOUS))).status).toBe(202);
  });

  const raw = JSON.stringify({ runners: ['runner-a'], kind: 'terminated' });
  it.each<[string, HttpRequest]>([
    ['no credentials', request(raw)],
    ['a wrong bearer token', request(raw, { authorization: 'Bearer not-the-secret' })],
    ['a bearer token that is a prefix of the secret', request(raw, { authorization: `Bearer ${SECRET.slice(0, 8)}` })],
    ['the secret in another scheme', request(raw, { authorization: `Basic ${SECRET}` })],
    ['an HMAC with a wrong key', signed(raw, 'another-key')],
    ['an HMAC of another body', { ...signed(raw), body: Buffer.from(raw.replace('runner-a', 'runner-b')) }],
    [
      'a bare hex HMAC without sha256=',
      request(raw, { 'x-reprise-signature-256': createHmac('sha256', SECRET).update(raw).digest('hex') }),
    ],
    ['an empty signature', request(raw, { 'x-reprise-signature-256': '', 'x-reprise-timestamp': TS })],
    [
      'an HMAC of the body alone, without a timestamp (a body signed so can be replayed at any time)',
      request(raw, { 'x-reprise-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}` }),
    ],
    [
      'an HMAC whose timestamp header was changed after signing',
      { ...signed(raw), headers: { ...signed(raw).headers, 'x-reprise-timestamp': String(NOW / 1000 + 1) } },
    ],
    ['an HMAC signed six minutes ago', signed(raw, SECRET, String(NOW / 1000 - 360))],
    ['an HMAC signed six minutes ahead', signed(raw, SECRET, String(NOW / 1000 + 360))],
  ])('refuses %s with 401 and writes nothing', async (_name, req) => {
    const { intake, items, log, metrics } = await setup();
    const res = await intake(req);
    expect(res.status).toBe(401);
    expect(await items()).toEqual([]);
    expect(metrics.get('SignalAuthFailure')).toBe(1);
    expect(JSON.stringify(log.lines)).not.toContain(SECRET);
  });

  it('answers 503 without logging the secret when it cannot be read or is empty', async () => {
    const failing = await setup(async () => Promise.reject(new Error('AccessDeniedException')));
    expect((await failing.intake(bearer(NTH_POST))).status).toBe(503);
    expect(failing.log.named('signal secret unavailable')).toHaveLength(1);
    const empty = await setup(async () => ['']);
    expect((await empty.intake(request(raw, { authorization: 'Bearer ' }))).status).toBe(503);
    expect(await empty.items()).toEqual([]);
  });

  it('an HMAC post signed four minutes ago is accepted; the same signed post again is refused 409 as a replay and writes nothing', async () => {
    const { intake, items, metrics } = await setup();
    const raw = '{"runners":["runner-replay"],"kind":"terminated"}';
    const first = signed(raw, SECRET, String(NOW / 1000 - 240));
    expect((await intake(first)).status).toBe(202);
    const before = (await items()).length;
    const again = await intake(first);
    expect(again).toMatchObject({ status: 409, body: { error: expect.stringMatching(/already used/) } });
    expect((await items()).length).toBe(before);
    expect(metrics.get('SignalReplayRefused')).toBe(1);
    // Signed afresh, the same content is a new post (its event id dedupes the record).
    expect((await intake(signed(raw, SECRET, String(NOW / 1000 - 1)))).status).toBe(202);
  });

  it('the refusal of an old HMAC post says why: the timestamp is outside the window', async () => {
    const { intake } = await setup();
    const res = await intake(signed('{"runners":["r"],"kind":"terminated"}', SECRET, String(NOW / 1000 - 3600)));
    expect(res).toMatchObject({ status: 401, body: { error: expect.stringMatching(/more than 300 s from now/) } });
  });

  it('a post under a scoped secret records its scope; a plain secret speaks for every installation', async () => {
    const clock = { t: NOW };
    const t = await freshTable(dynamo, 24 * 3600, () => clock.t);
    const intake = createSignalIntake({
      secrets: async () => [{ secret: 'scoped-secret', scope: ['acme', 'installation:42'] }, SECRET],
      store: t.store,
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
      now: () => clock.t,
    });
    expect((await intake(bearer({ runners: ['r-scoped'], kind: 'terminated' }, 'scoped-secret'))).status).toBe(202);
    expect((await intake(bearer({ runners: ['r-any'], kind: 'terminated' }))).status).toBe(202);
    const byRunner = Object.fromEntries(
      (await t.items()).filter((i) => String(i.pk).startsWith('RUNNER#')).map((i) => [i.runnerKey, i.scope]),
    );
    expect(byRunner).toEqual({ 'r-scoped': ['acme', 'installation:42'], 'r-any': ['*'] });
  });
});

describe('POST /signals: signals are per scope (issue 42, point 3)', () => {
  async function twoScopes() {
    const clock = { t: NOW };
    const t = await freshTable(dynamo, 24 * 3600, () => clock.t);
    const intake = createSignalIntake({
      secrets: async () => [
        { secret: 'acme-secret', scope: ['acme'] },
        { secret: 'mallory-secret', scope: ['mallory'] },
      ],
      store: t.store,
      log: new MemoryLog(),
      metrics: new MemoryMetrics(),
      now: () => clock.t,
    });
    return { ...t, clock, intake };
  }
  const acme = { login: 'acme', installationId: 1 };
  const mallory = { login: 'mallory', installationId: 2 };
  const other = { login: 'other', installationId: 3 };
  const window = { beforeMs: 10 * 60_000, afterMs: 60_000 };

  it.each([
    ['the documented shutdown-hook body (no event id, no time)', { runners: ['ghr-1'], kind: 'terminated' }],
    [
      'a body with an event id and a time',
      { runners: ['ghr-1'], kind: 'terminated', event_id: 'e-7', time: '2026-10-02T16:14:00Z' },
    ],
  ])('two scopes posting the same body: both recorded, each counted for its own owners only — %s', async (_, body) => {
    const { intake, store } = await twoScopes();
    const first = await intake(bearer(body, 'mallory-secret'));
    const second = await intake(bearer(body, 'acme-secret'));
    expect(first.body).toMatchObject({ recorded: 1 });
    expect(second.body).toMatchObject({ recorded: 1 });
    const at = new Date(NOW).toISOString();
    expect((await runnerSignalLookup(store).forRunner('ghr-1', at, window, acme)).map((s) => s.source)).toEqual([
      'agent',
    ]);
    expect(await runnerSignalLookup(store).forRunner('ghr-1', at, window, mallory)).toHaveLength(1);
    expect(await runnerSignalLookup(store).forRunner('ghr-1', at, window, other)).toEqual([]);
    // A retry of either scope's post is still that scope's one record.
    expect((await intake(bearer(body, 'acme-secret'))).body).toMatchObject({ recorded: 0 });
  });

  it("another scope's earlier post of the same body does not set this scope's time", async () => {
    const { intake, clock } = await twoScopes();
    const body = { runners: ['ghr-2'], kind: 'terminated' };
    const early = await intake(bearer(body, 'mallory-secret'));
    clock.t += 10 * 60_000;
    const own = await intake(bearer(body, 'acme-secret'));
    expect(own.body).toMatchObject({ recorded: 1, event_time: new Date(clock.t).toISOString() });
    expect(own.body.event_time).not.toBe(early.body.event_time);
  });
});

describe('POST /signals: a group scope with no owner', () => {
  it('is warned of once, on its first post: its signals count for that group in every organisation', async () => {
    const clock = { t: NOW };
    const t = await freshTable(dynamo, 24 * 3600, () => clock.t);
    const log = new MemoryLog();
    const intake = createSignalIntake({
      secrets: async () => [
        { secret: 'group-secret', scope: ['group:Default'] },
        { secret: 'owned-group', scope: ['acme', 'group:Default'] },
      ],
      store: t.store,
      log,
      metrics: new MemoryMetrics(),
      now: () => clock.t,
    });
    for (const r of ['r-1', 'r-2']) {
      expect((await intake(bearer({ runners: [r], kind: 'terminated' }, 'group-secret'))).status).toBe(202);
    }
    expect((await intake(bearer({ runners: ['r-3'], kind: 'terminated' }, 'owned-group'))).status).toBe(202);
    const warnings = log.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([expect.stringMatching(/^signal scope group:Default names no owner/)]);
  });
});

describe('POST /signals: validation', () => {
  const ok = { runners: ['runner-a'], kind: 'terminated' };
  it.each<[string, unknown, string]>([
    ['an array body', [ok], 'body'],
    ['a string body', 'runner-a', 'body'],
    ['no runners', { kind: 'terminated' }, 'runners'],
    ['runners not an array', { ...ok, runners: 'runner-a' }, 'runners'],
    ['empty runners', { ...ok, runners: [] }, 'runners'],
    ['an empty runner name', { ...ok, runners: ['runner-a', ''] }, 'runners'],
    ['a blank runner name', { ...ok, runners: ['  '] }, 'runners'],
    ['a numeric runner name', { ...ok, runners: [42] }, 'runners'],
    ['a runner name of 257 characters', { ...ok, runners: ['r'.repeat(257)] }, 'runners'],
    ['no kind', { runners: ['runner-a'] }, 'kind'],
    ['an unknown kind', { ...ok, kind: 'oom-kill' }, 'kind'],
    ['a kind in another case', { ...ok, kind: 'Terminated' }, 'kind'],
    ['a bad instance id', { ...ok, instance_id: 'ip-10-0-1-23' }, 'instance_id'],
    ['a numeric instance id', { ...ok, instance_id: 123 }, 'instance_id'],
    ['a reason that is not text', { ...ok, reason: { why: 'spot' } }, 'reason'],
    ['a reason over 1024 characters', { ...ok, reason: 'x'.repeat(1025) }, 'reason'],
    ['an empty event id', { ...ok, event_id: '' }, 'event_id'],
    ['a numeric event id', { ...ok, event_id: 7 }, 'event_id'],
    ['a time that is not ISO 8601', { ...ok, time: 'yesterday' }, 'time'],
    ['a time without a zone', { ...ok, time: '2026-10-02T16:14:00' }, 'time'],
    ['a time hours ahead', { ...ok, time: '2026-10-02T20:00:00Z' }, 'time'],
    ['30 February (no such date)', { ...ok, time: '2026-02-30T10:00:00Z' }, 'time'],
    ['29 February of a common year', { ...ok, time: '2026-02-29T10:00:00Z' }, 'time'],
    ['month 13', { ...ok, time: '2026-13-01T10:00:00Z' }, 'time'],
    ['31 September', { ...ok, time: '2026-09-31T10:00:00Z' }, 'time'],
    ['hour 24', { ...ok, time: '2026-10-02T24:00:00Z' }, 'time'],
    ['second 60', { ...ok, time: '2026-10-02T16:14:60Z' }, 'time'],
    ['a zone offset of 25 hours', { ...ok, time: '2026-10-02T16:14:00+25:00' }, 'time'],
  ])('refuses %s with 400 naming the field, and writes nothing', async (_name, body, field) => {
    const { intake, items } = await setup();
    const res = await intake(bearer(body));
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
    expect(String(res.body.error)).toMatch(new RegExp(`^${field}`));
    expect(await items()).toEqual([]);
  });

  it('an impossible date is refused with a clear error, never stored as another date', async () => {
    const { intake, items } = await setup();
    const res = await intake(bearer({ ...ok, time: '2026-02-30T10:00:00Z' }));
    expect(res).toMatchObject({ status: 400, body: { field: 'time' } });
    expect(res.body.error).toBe('time: 2026-02-30T10:00:00Z: month 2 of 2026 has 28 days');
    expect(await items()).toEqual([]);
  });

  it('real calendar instants are accepted: 29 February of a leap year, an offset zone', async () => {
    const { intake } = await setup();
    const leap = await intake(bearer({ ...ok, event_id: 'leap', time: '2024-02-29T10:00:00Z' }));
    expect(leap.status).not.toBe(400);
    const zoned = await intake(bearer({ ...ok, event_id: 'zoned', time: '2026-10-02T18:14:00+02:00' }));
    expect(zoned.body).toMatchObject({ event_time: '2026-10-02T16:14:00.000Z' });
  });

  it('refuses a body that is not JSON with 400', async () => {
    const { intake, items } = await setup();
    const res = await intake(signed('{"runners": ["a"'));
    expect(res).toMatchObject({ status: 400, body: { field: 'body' } });
    expect(await items()).toEqual([]);
  });

  it('refuses 101 runners with 413 and writes nothing', async () => {
    const { intake, items } = await setup();
    const runners = Array.from({ length: 101 }, (_, i) => `runner-${i}`);
    const res = await intake(bearer({ runners, kind: 'terminated' }));
    expect(res).toMatchObject({ status: 413, body: { field: 'runners' } });
    expect(await items()).toEqual([]);
  });

  it('accepts exactly 100 runners', async () => {
    const { intake } = await setup();
    const runners = Array.from({ length: 100 }, (_, i) => `runner-${i}`);
    expect((await intake(bearer({ runners, kind: 'terminated' }))).body).toMatchObject({ recorded: 100 });
  });

  it('refuses a body over 64 KiB with 413 before reading it', async () => {
    const { intake, items } = await setup();
    const res = await intake(bearer({ runners: ['a'], kind: 'terminated', reason: 'x'.repeat(64 * 1024) }));
    expect(res).toMatchObject({ status: 413, body: { field: 'body' } });
    expect(await items()).toEqual([]);
  });

  it('treats an empty instance_id (an agent that does not know it) as absent', async () => {
    const { intake, items } = await setup();
    expect((await intake(bearer({ ...ok, instance_id: '' }))).body).toMatchObject({ recorded: 1 });
    expect((await items()).filter((i) => String(i.pk).startsWith('RUNNER#'))).toHaveLength(1);
  });
});

describe('POST /signals: kinds and idempotency', () => {
  it.each([
    ['spot-interruption', 'spot-interruption'],
    ['terminated', 'terminated'],
    ['external', 'external'],
    ['node-termination', 'external'],
    ['rebalance', 'rebalance'],
  ])('records kind %s as %s', async (kind, recorded) => {
    const { intake, items } = await setup();
    await intake(bearer({ runners: ['runner-a'], kind, time: '2026-10-02T16:14:00Z' }));
    expect((await items())[0]).toMatchObject({ kind: recorded });
  });

  it('a retry without event_id or time writes nothing new', async () => {
    const { intake, items, clock, metrics } = await setup();
    const first = await intake(bearer(NTH_POST));
    const count = (await items()).length;
    clock.t += 30_000;
    // Same content, runners in another order: the same event.
    const retry = await intake(bearer({ ...NTH_POST, runners: [...NTH_POST.runners].reverse() }));
    expect(retry).toEqual({ status: 202, body: { ...first.body, recorded: 0 } });
    expect(await items()).toHaveLength(count);
    expect(metrics.get('SignalRecorded{kind=external}')).toBe(3);
  });

  it('the same content past the retry horizon is a new event (node names are reused)', async () => {
    const { intake, clock } = await setup();
    const post = { runners: ['ip-10-0-1-23.ec2.internal'], kind: 'node-termination' };
    const first = await intake(bearer(post));
    clock.t += RETRY_HORIZON_MS + 1000;
    const later = await intake(bearer(post));
    expect(later.body).toMatchObject({ recorded: 1, event_id: first.body.event_id });
    expect(later.body.event_time).not.toBe(first.body.event_time);
  });

  it('an agent event_id with a time is idempotent without the retry marker', async () => {
    const { intake, items } = await setup();
    const post = { runners: ['runner-a'], kind: 'terminated', event_id: 'e-1', time: '2026-10-02T16:14:00Z' };
    await intake(bearer(post));
    expect((await intake(bearer(post))).body).toMatchObject({ recorded: 0 });
    expect(await items()).toHaveLength(1);
  });
});

describe('a post’s body, read before anything is stored', () => {
  const post = { runners: ['r-1', 'r-2', 'r-1'], kind: 'spot-interruption', instance_id: '' };

  it('a valid body: runners once each, an empty instance id taken as absent', () => {
    expect(parseSignalPost(post, NOW)).toEqual({ post: { runners: ['r-1', 'r-2'], kind: 'spot-interruption' } });
  });

  it.each<[string, Record<string, unknown>, string, number]>([
    ['no runner', { ...post, runners: [] }, 'runners', 400],
    ['too many runners', { ...post, runners: Array.from({ length: 101 }, (_, i) => `r-${i}`) }, 'runners', 413],
    ['an unknown kind', { ...post, kind: 'meteor' }, 'kind', 400],
    ['a time over an hour ahead', { ...post, time: new Date(NOW + 2 * 3_600_000).toISOString() }, 'time', 400],
  ])('%s is refused, naming its field', (_name, body, field, status) => {
    expect(parseSignalPost(body, NOW)).toMatchObject({ field, status });
  });

  it('a post without an event id gets one from its content: the same for a retry, whatever the runners’ order', () => {
    const a = parseSignalPost({ runners: ['x', 'y'], kind: 'terminated' }, NOW);
    const b = parseSignalPost({ runners: ['y', 'x'], kind: 'terminated' }, NOW);
    const c = parseSignalPost({ runners: ['x', 'y'], kind: 'spot-interruption' }, NOW);
    if (!('post' in a) || !('post' in b) || !('post' in c)) throw new Error('expected valid posts');
    expect(derivedEventId(a.post)).toBe(derivedEventId(b.post));
    expect(derivedEventId(a.post)).not.toBe(derivedEventId(c.post));
  });

  it('a node termination is recorded as external; every other kind as itself', () => {
    expect(recordedKind('node-termination')).toBe('external');
    expect(recordedKind('rebalance')).toBe('rebalance');
  });
});
