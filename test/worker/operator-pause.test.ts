import { describe, expect, it } from 'vitest';
import type { Pause } from '../../lib/ledger/pauses.js';
import { operatorPause } from '../../lib/worker/operator-pause.js';
import { runMessage } from '../support/fixtures.js';

const held: Pause = { scope: 'acme', by: 'ops@box', reason: 'drill', since: '2026-12-05T10:00:00.000Z', until: null };
const ctx = (pause: Pause | undefined, asked: string[] = []) => ({
  stores: {
    pauses: {
      active: async (owner: string, name: string) => {
        asked.push(`${owner}/${name}`);
        return pause;
      },
    },
  },
});

describe('the operator’s pause before a re-run', () => {
  it('no pause holds the repository: no decision, the re-run goes ahead', async () => {
    const asked: string[] = [];
    const msg = runMessage();
    expect(await operatorPause(msg, ctx(undefined, asked) as never)).toBeUndefined();
    expect(asked).toEqual([`${msg.repository.owner}/${msg.repository.name}`]);
  });

  it('a pause holds it: decided paused, the reason names who, why, until when, and the replay command', async () => {
    const msg = runMessage({ runId: 77, runAttempt: 2 });
    const d = await operatorPause(msg, ctx(held) as never);
    expect(d?.decision).toBe('paused');
    expect(d?.reason).toBe(
      `would re-run, but acme paused by ops@box since 2026-12-05T10:00:00.000Z, until resumed: drill ` +
        `(after "reprise resume", "reprise replay ${msg.repository.owner}/${msg.repository.name}#77@2" sends it again)`,
    );
  });
});
