import type { RepoConfig } from '../config/repo-config.js';
import { CONFIG_PATH, parseRepoConfig } from '../config/repo-config.js';

export { CONFIG_PATH };
import type { RepoApi } from './repo-api.js';

interface Cached {
  readonly etag?: string;
  readonly text: string | null;
  readonly checkedAt: number;
}

export interface ConfigResult {
  readonly config: RepoConfig;
  /** Where it came from: the repository, the owner's `.github` repository, or the defaults. */
  readonly origin: string;
  readonly error?: string;
  /** With an error: the narrowing entries kept (empty: the runs are left alone). */
  readonly kept?: readonly string[];
}

/** A broken file, in the words a decision's reason gives its owners. */
export function configErrorNote(cfg: Pick<ConfigResult, 'error' | 'kept'>): string {
  const kept = cfg.kept ?? [];
  const what = kept.length > 0 ? `kept only what narrows re-runs (${kept.join(', ')})` : 'runs are left alone';
  return `configuration error, ${what}: ${cfg.error}`;
}

/**
 * Reads `.github/reprise.yml` (repository, then the owner's `.github` repository). The last
 * copy is kept with its ETag so an unchanged file costs a 304, which GitHub does not count;
 * an absent file is remembered for `absentTtlMs` so a repository without one costs nothing.
 */
export class RepoConfigSource {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly absentTtlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** `api` is the door to `owner/repo`; the owner's `.github` repository is read through it too. */
  async load(api: RepoApi, owner: string, repo: string, defaults: RepoConfig): Promise<ConfigResult> {
    for (const r of [repo, '.github']) {
      const text = await this.read(api, owner, r);
      if (text !== null) {
        const parsed = parseRepoConfig(defaults, text);
        return {
          config: parsed.config,
          origin: `${owner}/${r}`,
          ...(parsed.error !== undefined && { error: parsed.error, kept: parsed.kept ?? [] }),
        };
      }
    }
    return { config: defaults, origin: 'defaults' };
  }

  private async read(api: RepoApi, owner: string, repo: string): Promise<string | null> {
    const key = `${owner}/${repo}`.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.text === null && this.now() - cached.checkedAt < this.absentTtlMs) return null;
    const got = await api.readFile(CONFIG_PATH, { repo, ...(cached?.etag && { etag: cached.etag }) });
    switch (got.kind) {
      case 'unchanged':
        return cached?.text ?? null;
      case 'absent':
        this.cache.set(key, { text: null, checkedAt: this.now() });
        return null;
      case 'found':
        this.cache.set(key, { ...(got.etag && { etag: got.etag }), text: got.text, checkedAt: this.now() });
        return got.text;
    }
  }
}
