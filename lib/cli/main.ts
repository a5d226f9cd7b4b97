import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseEnv } from 'node:util';
import { backtest } from './backtest.js';
import { decisions } from './decisions.js';
import { explain } from './explain.js';
import { type CliIo, type Command, println } from './io.js';
import { replay } from './replay.js';
import { report } from './report.js';
import { setup } from './setup.js';
import { status } from './status.js';

export const COMMANDS: Readonly<Record<string, Command>> = {
  setup,
  status,
  explain,
  decisions,
  report,
  replay,
  backtest,
};

const HELP = `reprise: operate the reprise GitHub App.

Usage: reprise <command> [options]

Commands:
  setup       register the GitHub App (manifest flow) and store its credentials
  status      check the App's webhook, installations, deliveries, rate limit and recent decisions
  explain     show what reprise decides for a run, and why, without re-running it
  decisions   list recorded decisions
  report      runs decided, re-run outcomes, minutes lost and interruptions over a period
  replay      redeliver a webhook, or send a run attempt for a new decision
  backtest    what reprise would have done on past runs, against what people did

Run "reprise <command> --help" for a command's options. Every command prints plain text,
or JSON with --json, and exits 0 on success, 1 on failure, 2 on bad usage.
A .env file in the current directory is read, as npm start reads it.`;

/** Dispatches `reprise <command> …`; returns the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const command = topic === undefined ? undefined : COMMANDS[topic];
    if (command) return command(['--help'], io);
    println(name === undefined ? io.stderr : io.stdout, HELP);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    println(io.stderr, `reprise: unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(', ')}`);
    return 2;
  }
  return command(rest, io);
}

/** The process's own IO: the environment over a .env file in the working directory. */
export function processIo(): CliIo {
  const file = existsSync('.env') ? parseEnv(readFileSync('.env', 'utf8')) : {};
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return { stdout: process.stdout, stderr: process.stderr, env: { ...file, ...process.env } };
}

export async function runProcess(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), processIo());
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(realpathSync(entry)).href) await runProcess();
