/**
 * Memory of a whole process tree, read from /proc as an outside observer would: `npm start` is
 * npm, the shell it runs the script in and the runtime's node, and all of it is resident.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The pids under `root`, itself included, from each process's parent pid in /proc/<pid>/stat. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone between the listing and the read
    }
    // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** VmRSS of one process in bytes; 0 once it has exited. */
function rssOf(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The summed RSS of a process tree, and how many processes it had. */
export function treeRss(root: number): { bytes: number; processes: number } {
  const pids = descendants(root);
  return { bytes: pids.reduce((sum, pid) => sum + rssOf(pid), 0), processes: pids.length };
}

/** Samples a tree's RSS on an interval and keeps the peak. */
export class TreeSampler {
  private peakBytes = 0;
  private peakProcesses = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly root: number,
    intervalMs = 50,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  sample(): void {
    const t = treeRss(this.root);
    if (t.bytes > this.peakBytes) this.peakBytes = t.bytes;
    this.peakProcesses = Math.max(this.peakProcesses, t.processes);
  }

  stop(): { peakBytes: number; processes: number } {
    clearInterval(this.timer);
    this.sample();
    return { peakBytes: this.peakBytes, processes: this.peakProcesses };
  }
}
