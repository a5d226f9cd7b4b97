import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { backtest } from './backtest.js';
import { decisions } from './decisions.js';
import { checkoutDotenv, readDotenv, takeDotenv } from './dotenv.js';
import { explain } from './explain.js';
import { CliError, type CliIo, type Command, println } from './io.js';
import { pause, resume } from './pause.js';
import { replay } from './replay.js';
import { report } from './report.js';
import { setup } from './setup.js';
import { status } from './status.js';

/** Every `reprise` command by the name typed after `reprise`. */
export const COMMANDS: Readonly<Record<string, Command>> = {
  setup,
  status,
  explain,
  decisions,
  report,
  replay,
  pause,
  resume,
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
  pause       stop re-runs now (everything, an owner or a repository), no redeploy
  resume      lift a pause, and list the runs it held back for replay
  backtest    what reprise would have done on past runs, against what people did

Run "reprise <command> --help" for a command's options. Every command prints plain text,
or JSON with --json, and exits 0 on success, 1 on failure, 2 on bad usage.
Settings and credentials come from the environment, and from a .env file only when
--dotenv FILE names it (every command but setup, whose --dotenv is the file it writes), or
from the .env of reprise's own checkout (its directory) when run there. Every command that calls GitHub
first prints the host it calls (on stderr with --json), and sends credentials only over https
(http only to this machine).`;

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
  try {
    // setup's --dotenv is the file it writes: it reads only the checkout's own .env.
    const { args, file } = name === 'setup' ? { args: [...rest], file: undefined } : takeDotenv(rest);
    const read = file ?? io.dotenv;
    return await command(args, read ? { ...io, env: { ...readDotenv(read), ...io.env } } : io);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    println(io.stderr, `reprise ${name}: ${err.message}`);
    return err.exitCode;
  }
}

/** The process's own IO: its environment, and the .env of reprise's own checkout when run there. */
export function processIo(): CliIo {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dotenv = checkoutDotenv(process.cwd());
  return { stdout: process.stdout, stderr: process.stderr, env: { ...process.env }, ...(dotenv && { dotenv }) };
}

/** Runs the command line of this process and sets its exit code: the `reprise` binary's entry point. */
export async function runProcess(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), processIo());
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(realpathSync(entry)).href) await runProcess();
