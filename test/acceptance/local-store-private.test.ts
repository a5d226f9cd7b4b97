/**
 * The embedded DynamoDB (the ledger and the local queue's journal) is the runtime's alone: `npm
 * start` as a user runs it, then every TCP port its processes listen on is tried as a web page
 * (an `Origin` header, a CORS preflight) and as a local program with a made-up signature would
 * try it. None answers as DynamoDB, and the ledger the runtime reports is the same afterwards.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { TEXT, failureAnnotation } from '../support/evidence.js';
import { appEnv, INSTALLATION_ID } from '../support/harness.js';
import { type NpmStart, npmStart } from '../support/npm-start.js';
import { post, signedDelivery, workflowRunPayload } from '../support/webhooks.js';

const SECRET = 'store-private-secret';
const EVIL = 'https://evil.example';
/** A SigV4 header as a page would make one up: any key id, any signature. */
const MADE_UP_SIGNATURE =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/local/dynamodb/aws4_request, ' +
  'SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=' +
  'a'.repeat(64);

/** Every process of the group `npm start` leads (npm, its shell, the runtime's node). */
function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 5 of /proc/PID/stat is the process group; the command name before it may hold spaces.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(name));
    } catch {
      // Gone since the listing.
    }
  }
  return pids;
}

/** The inodes of the sockets those processes hold open. */
function socketInodes(pids: readonly number[]): Set<string> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // Closed since the listing.
      }
    }
  }
  return inodes;
}

/** The TCP ports those sockets listen on (IPv4 and IPv6), as /proc/net/tcp* lists them. */
function listeningPorts(inodes: Set<string>): number[] {
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is f[1] (HEX_IP:HEX_PORT), st is f[3] (0A = LISTEN), inode is f[9].
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** The Unix sockets among them that listen (flag __SO_ACCEPTCON) at a path. */
function unixSocketPaths(inodes: Set<string>): string[] {
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 8 && inodes.has(f[6]!) && f[3] === '00010000' && f[7]!.startsWith('/'))
    .map((f) => f[7]!);
}

interface Answer {
  readonly port: number;
  readonly what: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function ask(port: number, what: string, method: string, headers: Record<string, string>, body = ''): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: '/',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ port, what, status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    // A port that drops the connection answered nothing: that is a refusal too.
    req.on('error', (err) => resolve({ port, what, status: 0, headers: {}, body: err.message }));
    req.end(body);
  });
}

/** A DynamoDB call as the SDK would send it, with a signature nobody checked. */
const dynamoCall = (port: number, what: string, target: string, input: object, origin: boolean) =>
  ask(
    port,
    what,
    'POST',
    {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${target}`,
      'x-amz-date': '20260101T000000Z',
      authorization: MADE_UP_SIGNATURE,
      ...(origin && { origin: EVIL }),
    },
    JSON.stringify(input),
  );

/** Everything a page or a local program tries on one port. */
async function attack(port: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  answers.push(
    await ask(port, 'CORS preflight', 'OPTIONS', {
      origin: EVIL,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-amz-date,x-amz-target',
    }),
  );
  for (const origin of [true, false]) {
    const from = origin ? 'from a page' : 'from a local program';
    answers.push(await dynamoCall(port, `ListTables ${from}`, 'ListTables', {}, origin));
    for (const table of ['reprise', 'reprise-local-queue']) {
      answers.push(await dynamoCall(port, `Scan ${table} ${from}`, 'Scan', { TableName: table }, origin));
    }
    answers.push(
      await dynamoCall(
        port,
        `PutItem ${from}`,
        'PutItem',
        {
          TableName: 'reprise',
          Item: {
            pk: { S: 'RUNNER#planted' },
            sk: { S: 'SIGNAL#2026-01-01T00:00:00.000Z#planted' },
            kind: { S: 'terminated' },
          },
        },
        origin,
      ),
    );
  }
  return answers;
}

/** An answer DynamoDB (dynalite) gave: it names its request id, and speaks x-amz-json. */
const fromDynamo = (a: Answer): boolean =>
  a.headers['x-amzn-requestid'] !== undefined || String(a.headers['content-type'] ?? '').includes('x-amz-json');

describe.runIf(process.platform === 'linux')('the local store is private', () => {
  let sim: GitHubSimulator;
  let dir: string;
  let rt: NpmStart;
  let adminUrl: string;
  let token: string;
  const admin = async (path: string): Promise<unknown> => {
    const res = await fetch(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    sim.addInstallation({ id: INSTALLATION_ID, account: 'acme' });
    dir = await mkdtemp(join(tmpdir(), 'reprise-store-'));
    rt = npmStart(['--port', '0', '--data-dir', join(dir, 'data')], { ...appEnv(sim.url), WEBHOOK_SECRET: SECRET });
    const url = await rt.listening;
    const line = rt.lines.find((l) => l.message === 'reprise local runtime listening')!;
    adminUrl = line.admin as string;
    token = readFileSync(line.admin_token_file as string, 'utf8').trim();
    // One decision in the ledger, so a read that worked would have something to show.
    const run = sim.addRun({
      repo: 'acme/web',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [failureAnnotation(TEXT.exitCode(1))] }],
    });
    const d = await signedDelivery(SECRET, 'workflow_run', workflowRunPayload(sim, run.id));
    expect((await post(`${url}/webhook`, d)).status).toBe(202);
    for (let i = 0; i < 600; i++) {
      const { decisions } = (await admin('/decisions')) as { decisions: unknown[] };
      if (decisions.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 90_000);
  afterAll(async () => {
    await rt?.kill('SIGTERM');
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a page (Origin header, CORS preflight) and a made-up SigV4 signature, on every TCP port of npm start, read and write nothing', async () => {
    const before = { decisions: await admin('/decisions'), facts: await admin('/report-facts?since=0') };
    expect((before.decisions as { decisions: unknown[] }).decisions, JSON.stringify(rt.lines.slice(-8))).toHaveLength(
      1,
    );

    const ports = listeningPorts(socketInodes(groupPids(rt.child.pid!)));
    // The scan sees the runtime: its public and admin ports are among those it found.
    expect(ports).toEqual(
      expect.arrayContaining([Number(new URL(await rt.listening).port), Number(new URL(adminUrl).port)]),
    );
    const answers = (await Promise.all(ports.map(attack))).flat();
    expect(answers.filter(fromDynamo).map((a) => `${a.port} ${a.what}: ${a.status} ${a.body.slice(0, 80)}`)).toEqual(
      [],
    );
    expect(answers.filter((a) => a.headers['access-control-allow-origin'] !== undefined).map((a) => a.what)).toEqual(
      [],
    );
    expect(answers.filter((a) => /TableNames|"Items"|reprise-local-queue/.test(a.body))).toEqual([]);

    expect({ decisions: await admin('/decisions'), facts: await admin('/report-facts?since=0') }).toEqual(before);
  });

  it("the store's Unix socket is in a directory only the operator's account can enter", () => {
    const sockets = unixSocketPaths(socketInodes(groupPids(rt.child.pid!)));
    expect(sockets.filter((p) => p.endsWith('dynamodb.sock'))).toHaveLength(1);
    for (const path of sockets) {
      const parent = statSync(dirname(path));
      expect({ path, mode: (parent.mode & 0o777).toString(8), own: parent.uid === process.getuid!() }).toEqual({
        path,
        mode: '700',
        own: true,
      });
    }
  });
});
