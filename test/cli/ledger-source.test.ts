import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, UsageError } from '../../lib/cli/io.js';
import { ledgerSource, readLedger, tableName, tableSignals } from '../../lib/cli/ledger-source.js';
import { lostJob } from '../support/evidence.js';
import { startHarness, TABLE, type Harness } from '../support/harness.js';
import { captureIo, FakeCloudFormation } from './support.js';

describe('ledger-source: the table named', () => {
  const cloudFormation = new FakeCloudFormation({ Runners: { TableName: 'runners-table' }, Bare: {} });
  const io = captureIo({}, { cloudFormation });

  it("--table as given, else the stack's TableName output, else none", async () => {
    expect(await tableName(io, { table: 't', stack: 'Runners' })).toBe('t');
    expect(await tableName(io, { stack: 'Runners' })).toBe('runners-table');
    expect(await tableName(io, {})).toBeUndefined();
    await expect(tableName(io, { stack: 'Bare' })).rejects.toThrow('stack "Bare" has no output TableName');
  });

  it('--local with --table or --stack is refused; nothing named, no source', async () => {
    await expect(ledgerSource(io, { local: 'http://127.0.0.1:1', table: 't' })).rejects.toThrow(
      'use either --local or --table/--stack, not both',
    );
    expect(await ledgerSource(io, {})).toBeUndefined();
    await expect(readLedger(io, {}, async () => 1)).rejects.toThrow(UsageError);
    await expect(readLedger(io, {}, async () => 1)).rejects.toThrow('pass --stack NAME, --table NAME or --local URL');
  });
});

describe('ledger-source: the deployed table', () => {
  let h: Harness;
  let runId: number;
  beforeAll(async () => {
    h = await startHarness();
    runId = h.sim.addRun({ repo: 'acme/ledger', jobs: [lostJob('test', 'runner-31')] }).id;
    await h.worker()(h.sqsEvent([h.message(runId)]));
  });
  afterAll(async () => {
    await h.close();
  });
  const io = () => captureIo({}, { dynamodb: h.dynamo.client });

  it("the worker's decisions, without their stored message, and the report's facts since a time", async () => {
    const source = await ledgerSource(io(), { table: TABLE });
    expect(source?.where).toBe(`DynamoDB table ${TABLE}`);
    const list = await source!.list({ repository: 'acme/ledger' });
    expect(list.map((d) => [d.runId, d.decision])).toEqual([[runId, 'retried']]);
    expect(list[0]).not.toHaveProperty('message');
    const facts = await source!.facts(Date.now() - 3_600_000);
    expect(facts.decisions.map((d) => d.runId)).toContain(runId);
    expect((await source!.facts(Date.now() + 3_600_000)).decisions).toEqual([]);
  });

  it('readLedger says where it read; a table that cannot be read is one CliError naming it and the cause', async () => {
    const read = await readLedger(io(), { table: TABLE }, (s) => s.list({ limit: 1 }));
    expect(read.where).toBe(`DynamoDB table ${TABLE}`);
    expect(read.value).toHaveLength(1);
    const err = await readLedger(io(), { table: 'no-such-table' }, (s) => s.list({})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(/^cannot read DynamoDB table no-such-table: not found in AWS: /);
  });

  it("the table's runner signals are read as the worker reads them, under the runner name's keys", async () => {
    await h.signals.record({
      runnerKey: 'i-0123456789abcdef0',
      kind: 'spot-interruption',
      eventTime: '2026-03-01T10:00:00.000Z',
      eventId: 'evt-ledger-source',
      source: 'aws.ec2',
      instanceId: 'i-0123456789abcdef0',
    });
    const signals = tableSignals(h.ledger, h.settings);
    const found = await signals.forRunner('gh-runner-i-0123456789abcdef0', '2026-03-01T10:01:00.000Z', {
      beforeMs: 600_000,
      afterMs: 600_000,
    });
    expect(found).toEqual([expect.objectContaining({ kind: 'spot-interruption', instanceId: 'i-0123456789abcdef0' })]);
  });
});

describe('ledger-source: a running local runtime', () => {
  let server: Server;
  let url: string;
  const asked: string[] = [];
  beforeAll(async () => {
    // The operator port's two read routes, as the local runtime answers them.
    server = createServer((req, res) => {
      asked.push(`${req.headers.authorization} ${req.url}`);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/decisions') return res.end(JSON.stringify({ decisions: [{ runId: 5, decision: 'retried' }] }));
      if (path === '/report-facts') return res.end(JSON.stringify({ decisions: [], outcomes: [], signals: [] }));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('decisions and facts through the operator routes, the filter in the query, with the admin token', async () => {
    const source = await ledgerSource(captureIo({ REPRISE_ADMIN_TOKEN: 'tk' }), { local: `${url}/` });
    expect(source?.where).toBe(`local runtime ${url}`);
    expect(await source!.list({ repository: 'acme/web', sinceMs: 1000, limit: 5 })).toEqual([
      { runId: 5, decision: 'retried' },
    ]);
    expect(await source!.list({})).toHaveLength(1);
    expect(await source!.facts(2000)).toEqual({ decisions: [], outcomes: [], signals: [] });
    expect(asked).toEqual([
      'Bearer tk /decisions?repo=acme%2Fweb&since=1000&limit=5',
      'Bearer tk /decisions',
      'Bearer tk /report-facts?since=2000',
    ]);
  });
});
