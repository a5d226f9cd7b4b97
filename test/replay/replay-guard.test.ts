import { describe, expect, it } from 'vitest';
import { replayGuard } from '../../lib/replay/replay-guard.js';
import { runMessage } from '../support/fixtures.js';
import { MemoryAttempts } from '../support/fakes/attempts.js';

const msg = runMessage();
const LEASE = 60_000;

function ledgerAt(start = 1_000_000) {
  let now = start;
  const attempts = new MemoryAttempts(() => now);
  return { attempts, now: () => now, advance: (ms: number) => (now += ms) };
}

describe('replaying a run attempt: the ledger is read first', () => {
  it('an attempt the ledger has never seen is enqueued', async () => {
    const l = ledgerAt();
    expect(await replayGuard(l.attempts, msg, false, l.now())).toEqual({ kind: 'enqueue' });
  });

  it('a decided attempt is reported with its decision and reason, and left as it is without --force', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'w', LEASE);
    await l.attempts.finalise(msg, 'w', 'no_infra_evidence', 'no job lost its runner');
    expect(await replayGuard(l.attempts, msg, false, l.now())).toEqual({
      kind: 'already_decided',
      decision: 'no_infra_evidence',
      reason: 'no job lost its runner',
    });
    expect(l.attempts.of(msg).decision).toBe('no_infra_evidence');
  });

  it('--force gives back a decision that re-ran nothing, so the worker can claim the attempt again', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'w', LEASE);
    await l.attempts.finalise(msg, 'w', 'no_infra_evidence', 'no job lost its runner');
    expect(await replayGuard(l.attempts, msg, true, l.now())).toEqual({
      kind: 'enqueue',
      released: 'no_infra_evidence',
    });
    expect(await l.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('a run decided paused is given back without --force: the pause kept it for this replay', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'w', LEASE);
    await l.attempts.finalise(msg, 'w', 'paused', 'would re-run, but every repository paused by ops');
    expect(await replayGuard(l.attempts, msg, false, l.now())).toEqual({ kind: 'enqueue', released: 'paused' });
    expect(await l.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('--force refuses an attempt that was re-run, and names the next attempt to replay instead', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'w', LEASE);
    await l.attempts.finalise(msg, 'w', 'retried', 'runner lost');
    const verdict = await replayGuard(l.attempts, msg, true, l.now());
    expect(verdict).toMatchObject({ kind: 'refused', reason: expect.stringContaining('Replay attempt 2 instead') });
    expect(l.attempts.of(msg).decision).toBe('retried');
  });

  it('a claim within its lease is in progress, with or without --force, and names its owner', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'worker-b', LEASE);
    for (const force of [false, true]) {
      const verdict = await replayGuard(l.attempts, msg, force, l.now());
      expect(verdict).toMatchObject({ kind: 'in_progress', reason: expect.stringContaining('is claimed by worker-b') });
      expect(verdict.kind === 'in_progress' && verdict.reason).not.toContain('--force');
    }
    expect(l.attempts.of(msg).owner).toBe('worker-b');
  });

  it('a claim past its lease: in progress with the hint to --force, and --force releases it', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'worker-b', LEASE);
    l.advance(LEASE + 1);
    expect(await replayGuard(l.attempts, msg, false, l.now())).toMatchObject({
      kind: 'in_progress',
      reason: expect.stringContaining('--force releases an expired claim'),
    });
    expect(await replayGuard(l.attempts, msg, true, l.now())).toEqual({ kind: 'enqueue', released: 'claim' });
    expect(await l.attempts.get(msg.repository.id, msg.runId, msg.runAttempt)).toBeUndefined();
  });

  it('a wait for the re-run turn is in progress and says when its turn is', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'worker-b', LEASE);
    const slotAt = l.now() + 10 * 60_000;
    await l.attempts.wait(msg, 'worker-b', slotAt, l.now(), LEASE);
    expect(await replayGuard(l.attempts, msg, true, l.now())).toMatchObject({
      kind: 'in_progress',
      reason: expect.stringContaining(`is waiting for its re-run turn at ${new Date(slotAt).toISOString()}`),
    });
  });

  it('a record that changed between the read and the release is refused, to try again', async () => {
    const l = ledgerAt();
    await l.attempts.claim(msg, 'w', LEASE);
    await l.attempts.finalise(msg, 'w', 'genuine_failure', 'exit 1');
    const changing = {
      get: l.attempts.get.bind(l.attempts),
      forceRelease: async () => false,
    };
    expect(await replayGuard(changing, msg, true, l.now())).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('changed meanwhile; try again'),
    });
  });
});
