/**
 * `npm start` as a user runs it (the compiled runtime behind npm and its shell), in its own
 * process group so a test can kill all of it at once, with its JSON log lines kept.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = 'reprise local runtime listening';

export interface NpmStart {
  readonly child: ChildProcess;
  /** When the process was spawned (Date.now). */
  readonly spawnedAt: number;
  /** Every JSON line the runtime wrote to stdout or stderr, parsed, each stream in order. */
  readonly lines: Record<string, unknown>[];
  /** Resolves with the public URL once the runtime says it listens. */
  readonly listening: Promise<string>;
  readonly exited: Promise<void>;
  /** Signals the whole process group (npm, sh and node) and waits for npm to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export function npmStart(args: readonly string[], env: Record<string, string>): NpmStart {
  const child = spawn('npm', ['start', '--silent', '--', ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const spawnedAt = Date.now();
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<string>((resolve, reject) => {
    /** Splits a stream into lines and keeps those that are JSON objects. */
    const jsonLines = () => {
      let rest = '';
      return (chunk: Buffer): void => {
        const parts = (rest + chunk.toString('utf8')).split('\n');
        rest = parts.pop() ?? '';
        for (const text of parts) {
          if (!text.startsWith('{')) continue;
          let line: Record<string, unknown>;
          try {
            line = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // Not a log line (an object printed across lines, say): only the stderr tail keeps it.
            continue;
          }
          lines.push(line);
          if (line.message === LISTENING) resolve(line.url as string);
        }
      };
    };
    child.stdout!.on('data', jsonLines());
    // The logger writes its WARN and ERROR lines to stderr: they are kept with the others.
    child.stderr!.on('data', jsonLines());
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8_192)));
    void exited.then(() => reject(new Error(`npm start exited before listening: ${stderr}`)));
  });
  listening.catch(() => undefined);
  return {
    child,
    spawnedAt,
    lines,
    listening,
    exited,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, signal);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
      await exited;
      // npm is gone; the runtime's node goes with the group (the data dir's lock with it).
      for (let i = 0; i < 500 && groupAlive(child.pid!); i++) await new Promise((r) => setTimeout(r, 10));
    },
  };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
