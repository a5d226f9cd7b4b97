/**
 * The spot wave on the wall clock, black-box: the compiled runtime as `npm start` runs it,
 * real HTTP, the GitHub simulator with its secondary limit on, every figure counted from what
 * the simulator received.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { GitHubSimulator } from '../sim/index.js';
import type { CompiledRuntime } from './compiled-runtime.js';

export interface PlannedWave {
  readonly installation: number;
  readonly runIds: readonly number[];
}

export interface WaveFigures {
  readonly runs: number;
  /** Runs with exactly one re-run POST received (and that one accepted). */
  readonly onceExactly: number;
  /** Runs with no accepted re-run. */
  readonly never: number;
  /** Runs with more than one accepted re-run. */
  readonly doubled: number;
  /** Re-run POSTs received for these runs, accepted or refused. */
  readonly posts: number;
  readonly refused: number;
  /** From the first delivery to the last accepted re-run. */
  readonly drainMs: number;
  /** Per installation: from the first delivery to its last accepted re-run. */
  readonly drainByInstallation: ReadonlyMap<number, number>;
}

/**
 * How the waves reach the intake: `interleaved`, one run of each in turn, as a reclaim across
 * organisations arrives; `one after another`, every run of the first installation before any
 * of the second's, as when one organisation's fleet is reclaimed a moment before the others'.
 */
export type Arrival = 'interleaved' | 'one after another';

/** Delivers every run `copies` times, each copy under its own GUID, 25 runs at a time. */
export async function deliverWave(
  rt: CompiledRuntime,
  sim: GitHubSimulator,
  waves: readonly PlannedWave[],
  copies: number,
  arrival: Arrival = 'interleaved',
): Promise<number[]> {
  const longest = Math.max(...waves.map((w) => w.runIds.length));
  const all =
    arrival === 'interleaved'
      ? Array.from({ length: longest }, (_, i) =>
          waves.flatMap((w) => (i < w.runIds.length ? [{ id: w.runIds[i]!, installation: w.installation }] : [])),
        ).flat()
      : waves.flatMap((w) => w.runIds.map((id) => ({ id, installation: w.installation })));
  const statuses: number[] = [];
  for (let i = 0; i < all.length; i += 25) {
    const answers = await Promise.all(
      all
        .slice(i, i + 25)
        .flatMap(({ id, installation }) =>
          Array.from({ length: copies }, (_, c) => rt.deliver(sim, id, installation, `wave-${id}-copy-${c}`)),
        ),
    );
    statuses.push(...answers);
  }
  return statuses;
}

/** Waits until every run has an accepted re-run, or `timeoutMs` passes; then a settle for late doubles. */
export async function awaitReruns(
  sim: GitHubSimulator,
  runIds: readonly number[],
  timeoutMs: number,
  settleMs = 3_000,
): Promise<void> {
  const want = new Set(runIds);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const done = new Set(sim.reruns.map((r) => r.runId));
    if ([...want].every((id) => done.has(id))) break;
    await sleep(250);
  }
  await sleep(settleMs);
}

export function waveFigures(sim: GitHubSimulator, waves: readonly PlannedWave[], startedAt: number): WaveFigures {
  const runIds = waves.flatMap((w) => w.runIds);
  const tallies = runIds.map((id) => sim.rerunTally(id));
  const acceptedAt = new Map<number, number>();
  for (const r of sim.reruns) acceptedAt.set(r.runId, Math.max(acceptedAt.get(r.runId) ?? 0, r.at));
  const drainOf = (ids: readonly number[]) =>
    Math.max(startedAt, ...ids.map((id) => acceptedAt.get(id) ?? startedAt)) - startedAt;
  return {
    runs: runIds.length,
    onceExactly: tallies.filter((t) => t.received === 1 && t.accepted === 1).length,
    never: tallies.filter((t) => t.accepted === 0).length,
    doubled: tallies.filter((t) => t.accepted > 1).length,
    posts: tallies.reduce((n, t) => n + t.received, 0),
    refused: tallies.reduce((n, t) => n + (t.received - t.accepted), 0),
    drainMs: drainOf(runIds),
    drainByInstallation: new Map(waves.map((w) => [w.installation, drainOf(w.runIds)])),
  };
}
