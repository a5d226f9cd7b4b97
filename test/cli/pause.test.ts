import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDuration, pause, resume } from '../../lib/cli/pause.js';
import { openLedger } from '../../lib/ledger/ledger.js';
import { type EmbeddedDynamo, startDynamo } from '../../lib/local/dynamo.js';
import type { RunMessage } from '../../lib/model.js';
import { runMessage } from '../support/fixtures.js';
import { captureIo } from './support.js';

const TABLE = 'pause-cli';
let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startDynamo({ table: TABLE });
});
afterAll(async () => dynamo.close());

const io = () => captureIo({}, { dynamodb: dynamo.client });

describe('reprise pause and reprise resume against a table (--table)', () => {
  it('pause OWNER --for: written to the table, with who, why and until when; resume lifts it', async () => {
    const p = io();
    expect(await pause(['octo-org', '--reason', 'incident 7', '--for', '2h', '--table', TABLE], p), p.err()).toBe(0);
    expect(p.out()).toMatch(
      /^Paused in DynamoDB table pause-cli: octo-org paused by \S+@\S+ since \S+, until \S+: incident 7$/m,
    );
    const held = await openLedger(dynamo.client, TABLE).pauses.active('octo-org', 'app');
    expect(held).toMatchObject({ scope: 'octo-org', reason: 'incident 7' });
    expect(Date.parse(held!.until!) - Date.parse(held!.since)).toBe(2 * 3_600_000);

    const r = io();
    expect(await resume(['octo-org', '--table', TABLE, '--json'], r), r.err()).toBe(0);
    expect(JSON.parse(r.out())).toMatchObject({ resumed: { scope: 'octo-org' }, paused_runs: [], still_paused: [] });
    expect(await openLedger(dynamo.client, TABLE).pauses.active('octo-org', 'app')).toBeUndefined();
  });

  it('resume lists the runs decided paused while it held, each with its replay command', async () => {
    const ledger = openLedger(dynamo.client, TABLE);
    const p = io();
    expect(await pause(['--reason', 'everything', '--table', TABLE], p), p.err()).toBe(0);
    const msg: RunMessage = runMessage({ runId: 4242 });
    await ledger.attempts.claim(msg, 'w', 60_000);
    await ledger.attempts.finalise(msg, 'w', 'paused', 'would re-run, but every repository paused');
    const ok = io();
    expect(await resume(['--table', TABLE], ok), ok.err()).toBe(0);
    const repo = `${msg.repository.owner}/${msg.repository.name}`;
    expect(ok.out()).toContain(`1 run(s) were decided paused; send each again with:`);
    expect(ok.out()).toContain(`reprise replay ${repo}#4242@1 --table ${TABLE} --queue-url URL`);
  });

  it('resume of a scope that is not paused says so, and exits 0', async () => {
    const r = io();
    expect(await resume(['nobody', '--table', TABLE], r)).toBe(0);
    expect(r.out()).toContain('No pause of nobody was in force in DynamoDB table pause-cli.');
  });

  it.each([
    [['octo-org', '--table', TABLE], /--reason TEXT is required/],
    [['octo-org', '--reason', ' ', '--table', TABLE], /--reason TEXT is required/],
    [['octo-org/app#12', '--reason', 'x', '--table', TABLE], /expected OWNER or OWNER\/REPO/],
    [['a', 'b', '--reason', 'x', '--table', TABLE], /at most one OWNER/],
    [['--reason', 'x', '--for', 'soon', '--table', TABLE], /--for: expected a duration/],
    [['--reason', 'x'], /pass --stack NAME, --table NAME or --local URL/],
    [['--reason', 'x', '--table', TABLE, '--local', 'http://127.0.0.1:1'], /either --local or --table/],
  ])('pause %j is refused: %s', async (args, message) => {
    const c = io();
    expect(await pause(args, c)).toBeGreaterThan(0);
    expect(c.err()).toMatch(message);
  });

  it.each([
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['45s', 45_000],
  ])('--for %s is %d ms', (raw, ms) => {
    expect(parseDuration(raw)).toBe(ms);
  });

  it.each(['0m', '2w', '', '-1h'])('--for %j is refused', (raw) => {
    expect(() => parseDuration(raw)).toThrow(/--for/);
  });
});
