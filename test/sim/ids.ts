import { createHash } from 'node:crypto';

/** Small seeded PRNG (mulberry32) so fault rates and generated names are reproducible. */
export class Rng {
  private state: number;

  constructor(seed = 1) {
    this.state = seed >>> 0;
  }

  seed(n: number): void {
    this.state = n >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }

  alnum(length: number): string {
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let out = '';
    while (out.length < length) out += chars[Math.floor(this.next() * chars.length)];
    return out;
  }
}

/** Monotonic id sources, started at magnitudes like GitHub's so 32-bit assumptions show up. */
export class IdSource {
  private counters = new Map<string, number>();

  constructor(private readonly starts: Record<string, number>) {}

  next(kind: string): number {
    const current = this.counters.get(kind) ?? this.starts[kind] ?? 1;
    this.counters.set(kind, current + 1);
    return current;
  }

  /** Keeps later automatic ids above one chosen by a test. */
  bump(kind: string, used: number): void {
    const current = this.counters.get(kind) ?? this.starts[kind] ?? 1;
    if (used >= current) this.counters.set(kind, used + 1);
  }
}

/** GitHub's newer global node ids: a type prefix and base64url of a packed (repo, id) pair. */
export function nodeId(prefix: string, ...parts: number[]): string {
  const buf = Buffer.alloc(2 + parts.length * 8);
  buf.writeUInt8(0x93, 0);
  buf.writeUInt8(0x00, 1);
  parts.forEach((p, i) => buf.writeBigUInt64BE(BigInt(p), 2 + i * 8));
  return `${prefix}_kwDO${buf.toString('base64url')}`;
}

/** The blob sha git (and the contents API) gives a file. */
export function gitBlobSha(content: string): string {
  const data = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

export function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
