import { CONTEXT_KEYS } from '../../infra/context.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminTokenPath } from '../../lib/local/admin-token.js';
import { type Runtime, startRuntime } from '../../lib/local/runtime.js';
import { GitHubSimulator } from '../sim/index.js';
import { testPrivateKey } from '../support/harness.js';
import { MemoryLog } from '../support/memory-log.js';
import { closedPort } from '../cli/support.js';
import { type DocCommand, docCommands } from './commands.js';
import {
  checkout,
  inPool,
  pressTheButton,
  removeSandboxes,
  ROOT,
  sandbox,
  shellEnv,
  type,
  type Typed,
} from './support.js';
import { TEXT } from '../support/evidence.js';

const WEBHOOK_SECRET = 'docs-webhook-secret';
const SIGNAL_SECRET = 'docs-signal-secret';
const LOST = TEXT.selfHostedEmptyName;

/** Everything the docs show as a placeholder, and what a reader on this machine would type instead. */
const PLACEHOLDERS: readonly [string, (w: World) => string][] = [
  ['<tunnel>', () => 'tunnel.example.com'],
  ['<command> [options]', () => 'help'],
  ['<command>', () => 'help'],
  ['--port 3000', () => '--port 0'],
  ['--dotenv FILE', () => '--dotenv local.env'],
  ['http://127.0.0.1:3000', (w) => w.rt.url],
  ['http://127.0.0.1:3001', (w) => w.rt.adminUrl],
  // The runtime's data directory, where the CLI finds the operator routes' token.
  ['--data-dir .reprise', (w) => `--data-dir ${w.dataDir}`],
  ['https://abc123.execute-api.eu-west-1.amazonaws.com/signals', (w) => `${w.rt.url}/signals`],
  ['SIGNAL_SECRET=...', () => `SIGNAL_SECRET=${SIGNAL_SECRET}`],
];

interface World {
  /** GitHub as the commands see it: the App's installation on my-org, my-org/my-repo's run 12345678901. */
  readonly sim: GitHubSimulator;
  /** A second GitHub for `reprise setup`, whose manifest conversion makes a new App. */
  readonly web: GitHubSimulator;
  /** The local runtime the `--local` commands and the signal posts reach. */
  readonly rt: Runtime;
  /** Where that runtime keeps its admin token. */
  readonly dataDir: string;
  readonly env: Record<string, string>;
  readonly scripts: Record<string, string>;
}

/** How one documented command is run here, and what it must show. */
interface Rule {
  readonly match: RegExp;
  /** Said in the test's report: what was run, or why not. */
  readonly how: string;
  /** Empty when the command did what the docs promise, else what went wrong. */
  check(command: string, prelude: readonly string[], w: World): Promise<string>;
}

const script = (prelude: readonly string[], command: string): string => [...prelude, command].join('\n');
const shown = (t: Typed): string => `\nstdout: ${t.stdout().slice(-1500)}\nstderr: ${t.stderr().slice(-1500)}`;

/** A checkout holding the `.env` that `reprise setup --dotenv .env` writes, as after the README's first step. */
function configuredSandbox(w: World): string {
  const dir = checkout();
  const key = testPrivateKey().trim().replace(/\n/g, '\\n');
  writeFileSync(join(dir, '.env'), `APP_ID=${w.sim.app.id}\nPRIVATE_KEY="${key}"\nWEBHOOK_SECRET=${WEBHOOK_SECRET}\n`, {
    mode: 0o600,
  });
  writeFileSync(join(dir, 'local.env'), `APP_ID=${w.sim.app.id}\nPRIVATE_KEY="${key}"\nWEBHOOK_SECRET=x\n`);
  // The key the README's hand-written .env points at, as downloaded from the App's settings.
  writeFileSync(join(dir, 'reprise.private-key.pem'), testPrivateKey());
  return dir;
}

/** Runs a command to its end within the time; the exit code and output. */
async function runToEnd(command: string, prelude: readonly string[], cwd: string, env: Record<string, string>) {
  const t = type(script(prelude, command), cwd, env);
  const timer = setTimeout(() => void t.stop(), 30_000);
  const code = await t.exited;
  clearTimeout(timer);
  return { code, t };
}

/** Starts a long-running command, waits for its first sign of life, and stops it. */
function signOfLife(life: RegExp, then?: (m: RegExpExecArray) => Promise<string>): Rule['check'] {
  return async (command, prelude, w) => {
    const t = type(script(prelude, command), configuredSandbox(w), w.env);
    try {
      const m = await t.waitFor(life, 30_000);
      if (!m) return `no sign of life (${life}) within 30 s${shown(t)}`;
      return then ? await then(m) : '';
    } finally {
      await t.stop();
    }
  };
}

const RULES: readonly Rule[] = [
  {
    match: /^npm ci$/,
    how: 'installs the dependencies: not run (this suite runs on the installed tree); package-lock.json checked',
    check: async () => (existsSync(join(ROOT, 'package-lock.json')) ? '' : 'no package-lock.json for npm ci'),
  },
  {
    match: /^npm pack$/,
    how: 'packs the package: not run here (test/package/library.test.ts packs it and installs the tarball); the files field checked',
    check: async () => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files?: string[] };
      return pkg.files?.length ? '' : 'package.json has no files field: npm pack would ship the whole checkout';
    },
  },
  {
    match: /^npm install [^-]/,
    how: "installs the packed tarball into the reader's own CDK app: not run here (the package test installs it so); the tarball's name and the peers checked against package.json",
    check: async (command) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
        peerDependencies: Record<string, string>;
      };
      const tarball = `./${pkg.name}-${pkg.version}.tgz`;
      const wanted = [tarball, ...Object.keys(pkg.peerDependencies)].sort();
      const named = command.split(/\s+/).slice(2).sort();
      return JSON.stringify(named) === JSON.stringify(wanted)
        ? ''
        : `expected the tarball npm pack writes and the peer dependencies (${wanted.join(' ')}), got ${named.join(' ')}`;
    },
  },
  {
    match: /^npm (test|run test:faults)$/,
    how: 'the suite this test is part of (or a part of it): not run; the script checked',
    check: async (command, _prelude, w) => {
      const script = command === 'npm test' ? 'test' : command.replace('npm run ', '');
      return w.scripts[script] ? '' : `${command}: package.json has no such script`;
    },
  },
  {
    match: /^npm run build$/,
    how: "compiles into dist/: not run here, the suite's global setup has built it; the script checked",
    check: async (_command, _prelude, w) => (w.scripts.build ? '' : 'package.json has no build script'),
  },
  {
    match: /^npm run docs:settings$/,
    how: 'rewrites the settings tables of the docs: not run; test/docs/settings-docs.test.ts checks them',
    check: async (_command, _prelude, w) => (w.scripts['docs:settings'] ? '' : 'package.json has no docs:settings'),
  },
  {
    match: /^npm run (typecheck|lint|synth)$/,
    how: 'minutes of static checks or CDK synthesis, run by .ci/run: not run; the script checked',
    check: async () => '',
  },
  {
    match: /^(npx reprise|npm run reprise --) .*--stack /,
    how: 'needs AWS: run until its first AWS call (an unreachable endpoint here), which must fail with exit 1',
    check: async (command, prelude, w) => {
      const { code, t } = await runToEnd(command, prelude, configuredSandbox(w), w.env);
      if (code !== 1 || !/ECONNREFUSED/.test(t.stderr()))
        return `expected exit 1 at the AWS call, got ${code}${shown(t)}`;
      return '';
    },
  },
  {
    match: /^(npx reprise|npm run reprise --) setup /,
    how: 'needs a browser: typed on a fresh checkout (no .env yet), this test as the browser, GitHub (web host and API) simulated; the file checked',
    check: async (command, prelude, w) => {
      const dir = sandbox();
      const t = type(script(prelude, command), dir, { ...w.env, GITHUB_API_URL: `${w.web.url}/api/v3` });
      try {
        const visit = await pressTheButton(t).catch((err: Error) => err);
        if (visit instanceof Error) return visit.message;
        const code = await t.exited;
        if (visit.status !== 200 || code !== 0) return `callback ${visit.status}, exit ${code}${shown(t)}`;
      } finally {
        await t.stop();
      }
      const name = /--dotenv (\S+)/.exec(command)?.[1];
      if (!name) return 'exit 0, but the command names no --dotenv file to check';
      const file = join(dir, name);
      if ((statSync(file).mode & 0o777) !== 0o600) return `${file} is not mode 0600`;
      const stored = parseEnv(readFileSync(file, 'utf8'));
      return stored.APP_ID === String(w.web.app.id) && stored.WEBHOOK_SECRET === w.web.app.webhookSecret
        ? ''
        : `${file} does not hold the new App: ${Object.keys(stored).join(', ')}`;
    },
  },
  {
    match: /^(npx reprise|npm run reprise --) /,
    how: 'run against the GitHub simulator and the local runtime: exit 0',
    check: async (command, prelude, w) => {
      const { code, t } = await runToEnd(command, prelude, configuredSandbox(w), w.env);
      return code === 0 ? '' : `exit ${code}${shown(t)}`;
    },
  },
  {
    match: /^npm start\b/,
    how: 'long-running: started on port 0 until it listens, GET /healthz answered, stopped',
    check: signOfLife(/"message":"reprise local runtime listening".*?"url":"(http:\/\/[^"]+)"/, async (m) => {
      const res = await fetch(`${m[1]}/healthz`);
      return res.ok ? '' : `GET ${m[1]}/healthz answered ${res.status}`;
    }),
  },
  {
    match: /^npm run demo$/,
    how: 'long-running: started until its first line, stopped',
    check: signOfLife(/^reprise demo: local runtime at http/m),
  },
  {
    match: /^npm run bench\b/,
    how: 'long-running (minutes): started until its first line, which echoes the options, stopped',
    check: async (command, prelude, w) => {
      const latency = /--latency (\d+)/.exec(command)?.[1] ?? '100';
      const quick = command.includes('--quick') ? ', quick' : '';
      return signOfLife(new RegExp(`^reprise benchmark .*simulator latency ${latency} ms${quick}$`, 'm'))(
        command,
        prelude,
        w,
      );
    },
  },
  {
    match: /^npx cdk /,
    how: 'needs AWS: not run; the cdk binary and every -c context key checked',
    check: async (command) => {
      if (!existsSync(join(ROOT, 'node_modules/.bin/cdk'))) return 'the cdk binary is not installed';
      const unknown = [...command.matchAll(/-c (\w+)=/g)]
        .map((m) => m[1] as string)
        .filter((k) => !CONTEXT_KEYS.includes(k));
      return unknown.length ? `context keys the CDK app does not read: ${unknown.join(', ')}` : '';
    },
  },
  {
    match: /^aws /,
    how: 'the AWS CLI on a deployed stack: not run',
    check: async () => '',
  },
  {
    match: /^curl /,
    how: "run against the local runtime's POST /signals",
    check: async (command, prelude, w) => {
      const { code, t } = await runToEnd(command, prelude, sandbox(), w.env);
      return code === 0 ? '' : `exit ${code}${shown(t)}`;
    },
  },
];

/** Runs one command by its rule: how it ran, and what went wrong (empty when nothing did). */
async function tryCommand(
  command: string,
  prelude: readonly string[],
  w: World,
): Promise<{ how: string; problem: string }> {
  const npmScript = /^npm run (\S+)/.exec(command)?.[1];
  if (npmScript && !(npmScript in w.scripts)) {
    return { how: 'an npm script', problem: `npm run ${npmScript}: package.json has no such script` };
  }
  const rule = RULES.find((r) => r.match.test(command));
  if (!rule) return { how: 'no rule', problem: 'no rule for this command: say in this test how it runs here' };
  const problem = await rule.check(command, prelude, w).catch((err: Error) => String(err.stack));
  return { how: rule.how, problem };
}

const fill = (text: string, w: World): string =>
  PLACEHOLDERS.reduce((s, [from, to]) => s.split(from).join(to(w)), text);

function documented(): DocCommand[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((f) => docCommands(f, readFileSync(join(ROOT, f), 'utf8')));
}

describe('every command the docs show works when typed', () => {
  let world: World;
  beforeAll(async () => {
    const sim = await GitHubSimulator.start();
    const web = await GitHubSimulator.start();
    sim.addInstallation({ id: 4_201, account: 'my-org' });
    sim.addRun({
      id: 12_345_678_901,
      repo: 'my-org/my-repo',
      jobs: [{ name: 'test', conclusion: 'failure', annotations: [{ level: 'failure', message: LOST }] }],
    });
    sim.addDelivery({
      guid: '6a4c7a10-8f0e-11f0-9d5b-3c1e2a7b9f00',
      event: 'workflow_run',
      action: 'completed',
      statusCode: 502,
      // Older than the day `reprise status` looks at, within the three days a redelivery may ask for.
      deliveredAt: new Date(Date.now() - 30 * 3_600_000).toISOString(),
    });
    sim.hookConfig = { url: 'http://my-tunnel.example.com/webhook', content_type: 'json', insecure_ssl: '0' };
    const dataDir = mkdtempSync(join(tmpdir(), 'reprise-docs-data-'));
    const rt = await startRuntime({
      adminTokenFile: adminTokenPath(dataDir),
      env: {
        APP_ID: String(sim.app.id),
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET,
        SIGNAL_SECRET,
        GITHUB_API_URL: sim.url,
        LOG_HOSTS: '127.0.0.1',
      },
      log: new MemoryLog(),
      port: 0,
      retryBaseMs: 1,
    });
    const env = shellEnv({
      GITHUB_API_URL: `${sim.url}/api/v3`,
      LOG_HOSTS: '127.0.0.1',
      // Every server binds a free port; every AWS call meets a closed one, with credentials that look real.
      PORT: '0',
      AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIADOCSTEST',
      AWS_SECRET_ACCESS_KEY: 'docs-test',
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    world = { sim, web, rt, dataDir, env, scripts };
  });
  afterAll(async () => {
    removeSandboxes();
    await world?.rt.close();
    if (world) rmSync(world.dataDir, { recursive: true, force: true });
    await world?.sim.close();
    await world?.web.close();
  });

  it('collects the commands of README.md and docs/*.md, including the ones this issue is about', () => {
    const texts = documented().map((c) => c.text);
    expect(texts).toContain('npx reprise setup --dotenv .env --webhook-url https://<tunnel>/webhook');
    expect(texts).toContain('npm start -- --port 3000 --data-dir .reprise');
    expect(texts.filter((t) => t.startsWith('npx reprise ')).length).toBeGreaterThan(10);
    expect(texts.join('\n')).not.toMatch(/--env-file/);
  });

  it('a command the docs would show that no longer exists fails', async () => {
    const [gone, noScript, noContext] = await Promise.all([
      tryCommand('npx reprise frobnicate --repo my-org/my-repo', [], world),
      tryCommand('npm run frobnicate', [], world),
      tryCommand('npx cdk deploy -c frobnicate=1', [], world),
    ]);
    expect(gone.problem).toMatch(/^exit 2/);
    expect(gone.problem).toContain('unknown command "frobnicate"');
    expect(noScript.problem).toBe('npm run frobnicate: package.json has no such script');
    expect(noContext.problem).toBe('context keys the CDK app does not read: frobnicate');
  });

  it('the README names the supported Node versions as package.json and the functions do', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
      devEngines: { runtime: { version: string } };
    };
    // test/package/engines.test.ts holds these versions against the dependency tree.
    expect(pkg.engines.node).toBe('>=22');
    expect(readme).toContain('On a fresh machine with Node.js 22 or later. That is what the package supports');
    expect(pkg.devEngines.runtime.version).toMatch(/^\^20\./);
    expect(readme).toContain('Working on this repository still works on Node.js 20\n(`devEngines`)');
    expect(readFileSync(join(ROOT, 'infra/functions/reprise-function.ts'), 'utf8')).toContain('Runtime.NODEJS_22_X');
    expect(readme).toContain('`nodejs22.x`');
  });

  it('runs each as a user would type it (or as far as it can go here) and says how', async () => {
    // One run per distinct command, reported at every place it is shown.
    const byText = new Map<string, { command: string; prelude: string[]; where: string[] }>();
    for (const c of documented()) {
      const command = fill(c.text, world);
      const prelude = c.prelude.map((p) => fill(p, world));
      const key = script(prelude, command);
      const seen = byText.get(key) ?? { command, prelude, where: [] };
      seen.where.push(c.where);
      byText.set(key, seen);
    }
    const runs = [...byText.values()];
    const problems: string[] = [];
    const report: string[] = [];
    await inPool(runs, 3, async (r) => {
      const at = `${r.where.join(', ')}: ${r.command}`;
      const started = Date.now();
      const { how, problem } = await tryCommand(r.command, r.prelude, world);
      report.push(`${at}\n  ${how} (${((Date.now() - started) / 1000).toFixed(1)} s)${problem ? ' FAILED' : ''}`);
      if (problem) problems.push(`${at}\n  ${problem}`);
    });
    console.log(`Documented commands, and how each ran here:\n${report.sort().join('\n')}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
