/**
 * Repositories take turns from the first slot: a wave of the installation's pace on a fake clock
 * and the real table (dynalite), each run as the worker takes its turn — a slot within the
 * inline wait goes, a later one is a deferral the queue rounds up to whole seconds, a place in
 * the line is asked for again at its time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ledger, openLedger } from '../../lib/ledger/ledger.js';
import type { Pacing } from '../../lib/ledger/pacing.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import { INLINE_SLOT_WAIT_MS } from '../../lib/worker/pace-slot.js';

const TABLE = 'pace-turns-test';
const HOUR = 3_600_000;
/** How long a message takes to come back after its visibility ends (the queue's receive). */
const RECEIVE_MS = 120;

interface Arrival {
  readonly repository: number;
  readonly at: number;
}

interface WaveResult {
  /** Each run's slot (epoch ms), in arrival order; undefined: expired. */
  readonly slots: (number | undefined)[];
  readonly asks: number;
  readonly receives: number;
}

/**
 * The wave as the workers take their turns. `turns`: reservations name their repository (the
 * rotation); otherwise every run takes the next free slot, as a pace without turns does.
 */
async function wave(
  pace: Pacing,
  installation: number,
  arrivals: readonly Arrival[],
  clock: { t: number },
  turns: boolean,
): Promise<WaveResult> {
  type Event = { at: number; run: number; returning: boolean; kept?: number; seq: number };
  let seq = 0;
  const events: Event[] = arrivals.map((a, run) => ({ at: a.at, run, returning: false, seq: seq++ }));
  const slots: (number | undefined)[] = arrivals.map(() => undefined);
  let asks = 0;
  let receives = arrivals.length;
  const later = (now: number, until: number) => now + Math.ceil((until - now) / 1000) * 1000 + RECEIVE_MS;
  while (events.length > 0) {
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const ev = events.shift()!;
    clock.t = ev.at;
    if (ev.kept !== undefined) {
      slots[ev.run] = ev.kept;
      continue;
    }
    const { repository, at: arrived } = arrivals[ev.run]!;
    const latest = arrived + HOUR;
    asks++;
    const got = turns
      ? await pace.reserveWithinShare!(installation, latest, {
          repository,
          aheadMs: INLINE_SLOT_WAIT_MS,
          returning: ev.returning,
        })
      : await pace
          .reserve(installation, latest)
          .then((slotAt) => (slotAt === undefined ? { full: true as const } : { slotAt }));
    if ('full' in got) continue;
    receives++;
    if ('askAgainAt' in got) {
      events.push({ at: later(ev.at, got.askAgainAt), run: ev.run, returning: true, seq: seq++ });
    } else if (got.slotAt - ev.at <= INLINE_SLOT_WAIT_MS) {
      receives--;
      slots[ev.run] = got.slotAt;
    } else {
      events.push({ at: later(ev.at, got.slotAt), run: ev.run, returning: false, kept: got.slotAt, seq: seq++ });
    }
  }
  return { slots, asks, receives };
}

describe('repositories take turns from the first slot (fake clock, DynamoDB)', () => {
  let dynamo: EmbeddedDynamo;
  let ledger: Ledger;
  const start = Date.parse('2026-12-05T10:00:00Z');
  const clock = { t: start };
  let installations = 500;
  beforeAll(async () => {
    dynamo = await startDynamo({ table: TABLE });
    ledger = openLedger(dynamo.client, TABLE, () => clock.t);
  });
  afterAll(async () => dynamo.close());

  const limits = { perMinute: 80, perHour: 500, spacingMs: 350 };
  const run = (arrivals: readonly Arrival[], turns: boolean) =>
    wave(ledger.pacing(limits), ++installations, arrivals, clock, turns);
  const burst = (repository: number, n: number, at: number): Arrival[] =>
    Array.from({ length: n }, () => ({ repository, at }));

  it("a neighbour's run arriving after a burst gets its slot within two slot intervals, not after the burst; the burst is not starved", async () => {
    const arrivals = [...burst(1, 60, start), ...burst(2, 1, start + 5_000)];
    const today = await run(arrivals, false);
    const turns = await run(arrivals, true);
    const bWait = (r: WaveResult) => r.slots.at(-1)! - (start + 5_000);
    console.log(
      `[pace] neighbour after a 60-run burst: its slot ${bWait(today)} ms after its arrival without turns, ${bWait(turns)} ms with`,
    );
    expect(bWait(today)).toBeGreaterThan(10_000);
    expect(bWait(turns)).toBeLessThanOrEqual(2 * limits.spacingMs + INLINE_SLOT_WAIT_MS);
    // Every run of the burst has its slot, the whole wave drains as fast as without turns.
    expect(turns.slots.every((s) => s !== undefined)).toBe(true);
    const drain = (r: WaveResult) => Math.max(...r.slots.map((s) => s!)) - start;
    expect(drain(turns)).toBeLessThanOrEqual(drain(today) + INLINE_SLOT_WAIT_MS);
  });

  it("two bursts arriving together: the second's first run goes within the wave's first seconds, and the first burst does not go whole before it", async () => {
    const arrivals = [...burst(1, 20, start), ...burst(2, 20, start)];
    const lead = (r: WaveResult) => {
      const order = r.slots.map((s, i) => [s!, i < 20 ? 1 : -1] as const).sort((a, b) => a[0] - b[0]);
      let sum = 0;
      return Math.max(...order.map(([, d]) => Math.abs((sum += d))));
    };
    const [today, turns] = [await run(arrivals, false), await run(arrivals, true)];
    const secondFirst = (r: WaveResult) => Math.min(...r.slots.slice(20).map((s) => s!)) - start;
    console.log(
      `[pace] two bursts of 20: the second's first slot ${secondFirst(today)} → ${secondFirst(turns)} ms, ` +
        `the most one leads the other ${lead(today)} → ${lead(turns)} slots`,
    );
    // Runs placed before the second burst came keep the times they were told (a run asks twice at
    // most), so the first burst still leads by some: its first round's turns, not all of them.
    expect(secondFirst(turns)).toBeLessThanOrEqual(2 * INLINE_SLOT_WAIT_MS + limits.spacingMs);
    expect(lead(today)).toBe(20);
    expect(lead(turns)).toBeLessThan(15);
  });

  it('300 runs of 12 repositories arriving together in a shuffled order: every run has its slot at two asks a run, three receives at most, as fast as without turns', async () => {
    // A shuffled arrival puts later rounds' places first: runs of them come back early, and take the slot then.
    const shuffled = Array.from({ length: 300 }, (_, i) => ({
      repository: (i * 7) % 12,
      at: start + ((i * 7919) % 300),
    }));
    const arrivals = shuffled.sort((a, b) => a.at - b.at);
    const today = await run(arrivals, false);
    const turns = await run(arrivals, true);
    const drain = (r: WaveResult) => Math.max(...r.slots.map((s) => s!)) - start;
    console.log(
      `[pace] 12 repositories, 300 runs: asks a run ${(today.asks / 300).toFixed(2)} → ${(turns.asks / 300).toFixed(2)}, ` +
        `receives a run ${(today.receives / 300).toFixed(2)} → ${(turns.receives / 300).toFixed(2)}, drain ${drain(today)} → ${drain(turns)} ms`,
    );
    expect(turns.slots.every((s) => s !== undefined)).toBe(true);
    expect(turns.asks).toBeLessThanOrEqual(2 * 300);
    expect(turns.receives).toBeLessThanOrEqual(3 * 300);
    expect(drain(turns)).toBeLessThanOrEqual(drain(today) + INLINE_SLOT_WAIT_MS);
  });

  it('a one-repository wave asks the pace at most twice a run and drains in the same time as without turns', async () => {
    for (const n of [60, 200]) {
      const arrivals = Array.from({ length: n }, (_, i) => ({ repository: 1, at: start + i * 10 }));
      const today = await run(arrivals, false);
      const turns = await run(arrivals, true);
      const drain = (r: WaveResult) => Math.max(...r.slots.map((s) => s!)) - start;
      console.log(
        `[pace] one repository, ${n} runs: asks a run ${(today.asks / n).toFixed(2)} → ${(turns.asks / n).toFixed(2)}, ` +
          `receives a run ${(today.receives / n).toFixed(2)} → ${(turns.receives / n).toFixed(2)}, drain ${drain(today)} → ${drain(turns)} ms`,
      );
      expect(turns.slots.every((s) => s !== undefined)).toBe(true);
      expect(turns.asks / n).toBeLessThanOrEqual(2);
      expect(turns.receives).toBeLessThanOrEqual(today.receives);
      expect(drain(turns)).toBeLessThanOrEqual(drain(today) + INLINE_SLOT_WAIT_MS);
    }
  });
});
