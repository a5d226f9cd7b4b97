import type { RepoConfig } from '../config/repo-config.js';
import { parseRepoConfig } from '../config/repo-config.js';
import type { GitHubClient } from './client.js';

export const CONFIG_PATH = '.github/reprise.yml';

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
  /** Requests that count against the rate limit (a 304 does not). */
  readonly requests: number;
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

  async load(gh: GitHubClient, owner: string, repo: string, defaults: RepoConfig): Promise<ConfigResult> {
    let requests = 0;
    for (const [o, r] of [
      [owner, repo],
      [owner, '.github'],
    ] as const) {
      const got = await this.fetch(gh, o, r);
      requests += got.counted ? 1 : 0;
      if (got.text !== null) {
        const parsed = parseRepoConfig(defaults, got.text);
        return { config: parsed.config, origin: `${o}/${r}`, requests, ...(parsed.error && { error: parsed.error }) };
      }
    }
    return { config: defaults, origin: 'defaults', requests };
  }

  private async fetch(
    gh: GitHubClient,
    owner: string,
    repo: string,
  ): Promise<{ text: string | null; counted: boolean }> {
    const key = `${owner}/${repo}`.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.text === null && this.now() - cached.checkedAt < this.absentTtlMs) {
      return { text: null, counted: false };
    }
    try {
      const res = await gh.request('GET /repos/{owner}/{repo}/contents/{path}', {
        owner,
        repo,
        path: CONFIG_PATH,
        headers: cached?.etag ? { 'if-none-match': cached.etag } : {},
      });
      const data = res.data as { content?: string; encoding?: string };
      const text = data.content ? Buffer.from(data.content, 'base64').toString('utf8') : '';
      this.cache.set(key, { etag: res.headers.etag, text, checkedAt: this.now() });
      return { text, counted: true };
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status === 304 && cached) return { text: cached.text, counted: false };
      if (status === 404) {
        this.cache.set(key, { text: null, checkedAt: this.now() });
        return { text: null, counted: true };
      }
      throw err;
    }
  }
}
