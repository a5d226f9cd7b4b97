import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import { isLate, LATE_ALLOWANCE_MS, PLACE_STALE_MS } from '../../lib/ledger/pacing.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';

const TABLE = 'pacing-test';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('the shared pace of one installation (DynamoDB, single-item conditional writes)', () => {
  let dynamo: EmbeddedDynamo;
  let ledger: Ledger;
  const now = Date.parse('2026-12-02T10:00:00Z');
  const clock = () => now;
  beforeAll(async () => {
    dynamo = await startDynamo({ table: TABLE });
    ledger = openLedger(dynamo.client, TABLE, clock);
  });
  afterAll(async () => dynamo.close());

  const limits = (perMinute: number, perHour: number, spacingMs = 350) => ({ perMinute, perHour, spacingMs });

  it('below its limit an installation waits for nothing: slots only the write spacing apart, the first at once', async () => {
    const pace = ledger.pacing(limits(80, 500));
    expect(pace.spacingMs).toBe(350);
    const slots = [await pace.reserve(1), await pace.reserve(1), await pace.reserve(1)];
    expect(slots).toEqual([now, now + 350, now + 700]);
    // Another installation keeps its own pace.
    expect(await pace.reserve(2)).toBe(now);
  });

  it('repositories take turns from the first slot (fake clock): a burst holds places in its line, a neighbour arriving after takes the next turn, the burst keeps its order behind it', async () => {
    let t = now;
    const pace = ledger.at(() => t).pacing(limits(80, 0, 10_000));
    const latest = () => t + 10 * MINUTE;
    const share = (repository: number, returning = false) => ({ repository, aheadMs: 1_000, returning });
    // Repository 1 bursts: the first slot is free now; the others are places, each told its own time.
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(await pace.reserveWithinShare(31, latest(), share(1)));
    expect(burst).toEqual([
      { slotAt: now },
      { askAgainAt: now + 9_000 },
      { askAgainAt: now + 19_000 },
      { askAgainAt: now + 29_000 },
    ]);
    // Repository 2's first run arrives after the burst's first slot: it takes the first round's
    // turn after the burst's first waiting run, within two slots of its arrival.
    t = now + 500;
    expect(await pace.reserveWithinShare(31, latest(), share(2))).toEqual({ askAgainAt: now + 19_000 });
    // Its second run takes the second round: after the burst's second waiting run, before its third.
    expect(await pace.reserveWithinShare(31, latest(), share(2))).toEqual({ askAgainAt: now + 39_000 });
    // A report (plain reserve) with a short `latest` finds no slot near: the line holds them.
    expect(await pace.reserve(31, t + 1_000)).toBeUndefined();
    // The burst's run comes back at its time and takes its slot.
    t = now + 9_000;
    expect(await pace.reserveWithinShare(31, latest(), share(1, true))).toEqual({ slotAt: now + 10_000 });
    // Then repository 2's, at the time it was told.
    t = now + 19_000;
    expect(await pace.reserveWithinShare(31, latest(), share(2, true))).toEqual({ slotAt: now + 20_000 });
    // The burst's run told this time before repository 2 came takes the next free slot: a slot
    // it waits for, not a second ask (a run asks twice at most).
    expect(await pace.reserveWithinShare(31, latest(), share(1, true))).toEqual({ slotAt: now + 30_000 });
    // A place later than `latest` is none: the run is expired, and its place given up.
    t = now + 29_000;
    expect(await pace.reserveWithinShare(31, t + 1_000, share(2, true))).toEqual({ full: true });
    expect(await pace.reserveWithinShare(31, t + 1_000, share(3))).toEqual({ full: true });
    // A new repository's first run goes ahead of the burst's last (its second round).
    expect(await pace.reserveWithinShare(31, latest(), share(4))).toEqual({ askAgainAt: now + 39_000 });
    t = now + 39_000;
    expect(await pace.reserveWithinShare(31, latest(), share(4, true))).toEqual({ slotAt: now + 40_000 });
    expect(await pace.reserveWithinShare(31, latest(), share(1, true))).toEqual({ slotAt: now + 50_000 });
  });

  it('a place not taken long after its time is given up: a run decided otherwise holds no turn for nobody', async () => {
    let t = now;
    const pace = ledger.at(() => t).pacing(limits(80, 0, 10_000));
    const share = (repository: number) => ({ repository, aheadMs: 1_000 });
    expect(await pace.reserveWithinShare(33, t + HOUR, share(1))).toEqual({ slotAt: now });
    expect(await pace.reserveWithinShare(33, t + HOUR, share(2))).toEqual({ askAgainAt: now + 9_000 });
    // Repository 2's run never comes back: its place holds the turn until it is stale.
    t = now + 10_000 + PLACE_STALE_MS;
    expect(await pace.reserveWithinShare(33, t + HOUR, share(3))).toEqual({ askAgainAt: t + 9_000 });
    // Past it, the stale place is given up: repository 3's run, back late, goes at once (its slot a
    // moment ago, within the late allowance), not a spacing after a turn held for nobody.
    t += 1 + PLACE_STALE_MS + 9_000;
    expect(await pace.reserveWithinShare(33, t + HOUR, { ...share(3), returning: true })).toEqual({
      slotAt: t - LATE_ALLOWANCE_MS / 2,
    });
  });

  it('reserve (reports, the stuck sweep) takes the next slot whatever the repositories hold', async () => {
    const pace = ledger.pacing(limits(80, 0, 10_000));
    for (let i = 0; i < 4; i++) await pace.reserveWithinShare(32, now + MINUTE, { repository: 1, aheadMs: 30_000 });
    expect(await pace.reserve(32)).toBe(now + 40_000);
  });

  it('the minute limit: the slot after `perMinute` slots waits a minute and the late allowance after the first of them', async () => {
    const pace = ledger.pacing(limits(5, 0, 100));
    const slots = [];
    for (let i = 0; i < 6; i++) slots.push((await pace.reserve(11))!);
    expect(slots.slice(0, 5)).toEqual([0, 1, 2, 3, 4].map((i) => now + i * 100));
    expect(slots[5]).toBe(now + MINUTE + LATE_ALLOWANCE_MS);
  });

  it('a wave of 250 at 80 a minute: no window of a minute and the allowance holds more than 80 slots, and each window fills', async () => {
    const pace = ledger.pacing(limits(80, 0));
    const slots: number[] = [];
    for (let i = 0; i < 250; i++) slots.push((await pace.reserve(12))!);
    const most = Math.max(
      ...slots.map((t) => slots.filter((s) => s >= t && s < t + MINUTE + LATE_ALLOWANCE_MS).length),
    );
    expect(most).toBe(80);
    // Three full windows and a part: the wave drains at the limit, not at a spacing of the minute ÷ 80.
    expect(slots.at(-1)! - now).toBe(3 * (MINUTE + LATE_ALLOWANCE_MS) + 9 * 350);
  });

  it('reservations at once, 20 in each of two processes sharing the table: every slot distinct, the spacing and the minute limit kept', async () => {
    const processes = [0, 1].map(() => openLedger(dynamo.client, TABLE, clock).pacing(limits(30, 0, 100)));
    const slots = (
      await Promise.all(processes.flatMap((pace) => Array.from({ length: 20 }, () => pace.reserve(13))))
    ).map((s) => s!);
    const sorted = [...slots].sort((a, b) => a - b);
    expect(new Set(slots).size).toBe(40);
    expect(sorted.slice(1).every((s, i) => s - sorted[i]! >= 100)).toBe(true);
    const most = Math.max(
      ...sorted.map((t) => sorted.filter((s) => s >= t && s < t + MINUTE + LATE_ALLOWANCE_MS).length),
    );
    expect(most).toBe(30);
  });

  it('a request later than the allowance after its slot is late: it takes a new slot', () => {
    expect(isLate(now, now + LATE_ALLOWANCE_MS)).toBe(false);
    expect(isLate(now, now + LATE_ALLOWANCE_MS + 1)).toBe(true);
    expect(isLate(now, now - 5)).toBe(false);
  });

  it('a reservation bounded by `latest` takes nothing when the next slot is later', async () => {
    const pace = ledger.pacing(limits(60, 0));
    expect(await pace.reserve(3)).toBe(now);
    expect(await pace.reserve(3, now + 10)).toBeUndefined();
    expect(await pace.reserve(3)).toBe(now + pace.spacingMs);
  });

  it('a slot free now is taken even when `latest` has passed: time moves between the caller and the read', async () => {
    let t = now;
    const pace = ledger.at(() => t).pacing(limits(60, 0));
    const latest = t + 1;
    t += 50; // the table read took longer than the caller's allowance
    expect(await pace.reserve(6, latest)).toBe(t);
    expect(await pace.reserve(6, t + 1)).toBeUndefined();
  });

  it('the hourly limit: the slot after `perHour` slots waits an hour after the first of them', async () => {
    const pace = ledger.pacing(limits(6000, 3));
    const first = await pace.reserve(4);
    await pace.reserve(4);
    await pace.reserve(4);
    expect(await pace.reserve(4)).toBe(first! + HOUR + LATE_ALLOWANCE_MS);
  });

  it('20 workers reserving at once get 20 distinct slots, each a spacing apart', async () => {
    const pace = ledger.pacing(limits(80, 500));
    const slots = (await Promise.all(Array.from({ length: 20 }, () => pace.reserve(5)))) as number[];
    expect([...slots].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => now + i * pace.spacingMs));
  });

  it.each([
    [limits(0, 1), /a minute/],
    [limits(1, -1), /an hour/],
    [limits(1, 1, -1), /spacing/],
  ])('refuses %j', (limits, message) => {
    expect(() => ledger.pacing(limits)).toThrow(message);
  });
});
