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

/** VmRSS of one process in bytes, and its anonymous and file-backed parts; 0 once it has exited. */
function rssOf(pid: number): { rss: number; anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
  } catch {
    return { rss: 0, anon: 0, file: 0 };
  }
}

const RUNTIME = 'runtime (node)';
/** The runtime's RSS split (from /proc/<pid>/status), listed after it: not added to the tree's sum. */
export const RUNTIME_ANON = 'of which allocated (heap, buffers, native)';
export const RUNTIME_FILE = "of which node's binary and libraries";

/** What a process of the tree is: npm, the shell, the runtime's node, or its command's name. */
function componentOf(pid: number): string {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return 'gone';
  }
  const [cmd = '', ...rest] = args;
  const base = cmd.split('/').pop() ?? cmd;
  // npm renames its process ("npm start …"): its title is its whole command line.
  if (/^npm\b/.test(cmd) || base === 'npm' || rest.some((a) => /npm-cli\.js$|\/bin\/npm$/.test(a))) return 'npm';
  if (base === 'sh' || base === 'bash' || base === 'dash') return 'sh';
  if (rest.some((a) => /main\.js$/.test(a))) return RUNTIME;
  return base;
}

/** The summed RSS of a process tree, how many processes it had, and each one's by component. */
export function treeRss(root: number): { bytes: number; processes: number; byComponent: Record<string, number> } {
  const pids = descendants(root);
  const byComponent: Record<string, number> = {};
  let bytes = 0;
  for (const pid of pids) {
    const { rss, anon, file } = rssOf(pid);
    bytes += rss;
    const name = componentOf(pid);
    byComponent[name] = (byComponent[name] ?? 0) + rss;
    if (name === RUNTIME) {
      // What the runtime allocated (V8's heap, buffers, native memory) apart from the pages of node's own binary.
      byComponent[RUNTIME_ANON] = (byComponent[RUNTIME_ANON] ?? 0) + anon;
      byComponent[RUNTIME_FILE] = (byComponent[RUNTIME_FILE] ?? 0) + file;
    }
  }
  return { bytes, processes: pids.length, byComponent };
}

/** Samples a tree's RSS on an interval and keeps the peak. */
export class TreeSampler {
  private peakBytes = 0;
  private peakProcesses = 0;
  private readonly peakByComponent: Record<string, number> = {};
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
    for (const [name, bytes] of Object.entries(t.byComponent)) {
      this.peakByComponent[name] = Math.max(this.peakByComponent[name] ?? 0, bytes);
    }
  }

  /** The tree's peak, and each component's own peak (not necessarily at the same moment). */
  stop(): { peakBytes: number; processes: number; byComponent: Record<string, number> } {
    clearInterval(this.timer);
    this.sample();
    return { peakBytes: this.peakBytes, processes: this.peakProcesses, byComponent: { ...this.peakByComponent } };
  }
}
