import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

/** Where `moto_server` is on the PATH, or undefined. */
export function motoServerPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v moto_server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface MotoServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `moto_server` on a free port (port 0) and waits for the port it prints. */
export async function startMoto(path: string): Promise<MotoServer> {
  const child: ChildProcess = spawn(path, ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`moto_server printed no address:\n${seen}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`moto_server exited (${code}):\n${seen}`)));
  });
  // Its request log is not read: drain it so the pipe never fills.
  child.stderr!.resume();
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
