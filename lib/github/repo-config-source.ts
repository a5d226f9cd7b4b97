import { clampToCeiling, NO_CEILING, type RepoCeiling } from '../config/repo-ceiling.js';
import type { RepoConfig } from '../config/repo-config.js';
import { CONFIG_PATH, type ParsedRepoConfig, parseRepoConfig, REPO_CONFIG_MAX_BYTES } from '../config/repo-config.js';

export { CONFIG_PATH };
import type { RepoApi } from './repo-api.js';

interface Cached {
  readonly etag?: string;
  readonly text: string | null;
  /** A file too large to read: its declared size, and no text kept. */
  readonly bytes?: number;
  readonly checkedAt: number;
  /** The text parsed over `defaults`: an unchanged file (a 304) is not parsed again. */
  parsed?: { readonly defaults: RepoConfig; readonly result: ParsedRepoConfig };
}

/** A repository's settings, where they came from, and what was kept when its file was broken. */
export interface ConfigResult {
  readonly config: RepoConfig;
  /** Where it came from: the repository, the owner's `.github` repository, or the defaults. */
  readonly origin: string;
  readonly error?: string;
  /** With an error: the narrowing entries kept (empty: the runs are left alone). */
  readonly kept?: readonly string[];
  /** What the operator's ceiling lowered in the file's settings. */
  readonly clamped?: readonly string[];
}

/** The ceiling's clamps, in the words a decision's reason gives its owners. */
export const clampNote = (clamped: readonly string[]): string =>
  `repository settings above the deployment's ceiling: ${clamped.join('; ')}`;

/** A broken file, in the words a decision's reason gives its owners. */
export function configErrorNote(cfg: Pick<ConfigResult, 'error' | 'kept'>): string {
  const kept = cfg.kept ?? [];
  const what = kept.length > 0 ? `kept only what narrows re-runs (${kept.join(', ')})` : 'runs are left alone';
  return `configuration error, ${what}: ${cfg.error}`;
}

/**
 * Reads `.github/reprise.yml` (repository, then the owner's `.github` repository). The last
 * copy is kept with its ETag and its parse, so an unchanged file costs a 304 (which GitHub does
 * not count) and no parse;
 * an absent file is remembered for `absentTtlMs` so a repository without one costs nothing.
 * Concurrent reads of one file share the request in flight: a burst of first decisions in new
 * repositories of one organisation reads its `.github` fallback once, not once each.
 */
export class RepoConfigSource {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<Cached | undefined>>();

  constructor(
    private readonly absentTtlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
    private readonly ceiling: RepoCeiling = NO_CEILING,
  ) {}

  /** `api` is the adapter for `owner/repo`; the owner's `.github` repository is read through it too. */
  async load(api: RepoApi, owner: string, repo: string, defaults: RepoConfig): Promise<ConfigResult> {
    for (const r of [repo, '.github']) {
      const cached = await this.read(api, owner, r);
      if (cached?.text != null) {
        const parsed = this.parse(cached, defaults);
        const { config, clamped } = clampToCeiling(parsed.config, defaults, this.ceiling);
        return {
          config,
          origin: `${owner}/${r}`,
          ...(parsed.error !== undefined && { error: parsed.error, kept: parsed.kept ?? [] }),
          ...(clamped.length > 0 && { clamped }),
        };
      }
    }
    return { config: defaults, origin: 'defaults' };
  }

  private parse(cached: Cached, defaults: RepoConfig): ParsedRepoConfig {
    if (cached.parsed?.defaults === defaults) return cached.parsed.result;
    const result = parseRepoConfig(defaults, cached.text ?? '', cached.bytes);
    cached.parsed = { defaults, result };
    return result;
  }

  /** The file's cache entry, brought up to date (by the read in flight, if one is); undefined when there is none. */
  private read(api: RepoApi, owner: string, repo: string): Promise<Cached | undefined> {
    const key = `${owner}/${repo}`.toLowerCase();
    const cached = this.cache.get(key);
    if (cached && cached.text === null && this.now() - cached.checkedAt < this.absentTtlMs) {
      return Promise.resolve(cached);
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const reading = this.fetch(api, key, repo, cached).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, reading);
    return reading;
  }

  private async fetch(
    api: RepoApi,
    key: string,
    repo: string,
    cached: Cached | undefined,
  ): Promise<Cached | undefined> {
    const got = await api.readFile(CONFIG_PATH, {
      repo,
      maxBytes: REPO_CONFIG_MAX_BYTES,
      ...(cached?.etag && { etag: cached.etag }),
    });
    switch (got.kind) {
      case 'unchanged':
        return cached;
      case 'absent': {
        const absent = { text: null, checkedAt: this.now() };
        this.cache.set(key, absent);
        return absent;
      }
      case 'oversized': {
        const oversized = { ...(got.etag && { etag: got.etag }), text: '', bytes: got.bytes, checkedAt: this.now() };
        this.cache.set(key, oversized);
        return oversized;
      }
      case 'found': {
        const found = { ...(got.etag && { etag: got.etag }), text: got.text, checkedAt: this.now() };
        this.cache.set(key, found);
        return found;
      }
    }
  }
}
