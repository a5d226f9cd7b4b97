import { isMap, isNode, isScalar, parseDocument } from 'yaml';
import type { RepoConfig } from '../model.js';
import { clip, TEXT_CAPS } from '../util/clip.js';
import { failClosed } from './fail-closed.js';
import { applyConfig } from './repo-settings.js';

export type { RepoConfig };
export { applyConfig, BUILT_IN_DEFAULTS, IGNORE_JOBS_LIMITS } from './repo-settings.js';

/** Where a repository (or its owner's `.github` repository) keeps its settings. */
export const CONFIG_PATH = '.github/reprise.yml';

/** A repository file larger than this is refused unread: its parse would cost every installation's decisions. */
export const REPO_CONFIG_MAX_BYTES = 64 * 1024;

/** A repository file read: the config in force, and what was wrong with the file. */
export interface ParsedRepoConfig {
  readonly config: RepoConfig;
  /** What is wrong with the file; the config then keeps only what narrows re-runs. */
  readonly error?: string;
  /** With an error: the narrowing entries kept (empty: the runs are left alone). */
  readonly kept?: readonly string[];
}

type Entry = readonly [string, unknown];

/**
 * The file's top-level entries, in order, as far as they parsed, and its first fault. Keys
 * are checked for repeats with a set: linear in the file, where the YAML parser's own check
 * compares every pair.
 */
function readEntries(text: string): { entries: Entry[]; fault?: string } {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  const entries: Entry[] = [];
  let fault = doc.errors[0]?.message.split('\n')[0];
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && (contents.value === null || contents.value === ''))) {
    return { entries, ...(fault !== undefined && { fault }) };
  }
  if (!isMap(contents)) return { entries, fault: fault ?? 'expected a mapping of settings' };
  const seen = new Set<string>();
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (typeof key !== 'string') {
      fault ??= `a key that is not a setting name: ${JSON.stringify(String(key))}`;
      continue;
    }
    if (seen.has(key)) fault ??= `${key}: set more than once`;
    seen.add(key);
    const value: unknown = isNode(pair.value) ? pair.value.toJSON() : pair.value;
    entries.push([key, value ?? null]);
  }
  return { entries, ...(fault !== undefined && { fault }) };
}

/**
 * Parses a `.github/reprise.yml`; never throws. A file that is too large (by its text, or by the
 * size GitHub declared for a file it was not decoded from), does not parse or holds an invalid
 * entry fails closed (see `failClosed`): the error comes back with settings
 * that keep only what narrows re-runs, or that leave the runs alone.
 */
export function parseRepoConfig(base: RepoConfig, text: string, declaredBytes?: number): ParsedRepoConfig {
  const fail = (message: string, entries: Entry[] = []): ParsedRepoConfig => {
    const closed = failClosed(base, entries, (raw) => applyConfig(base, raw));
    return { ...closed, error: clip(`${CONFIG_PATH}: ${message}`, TEXT_CAPS.error) };
  };
  const bytes = declaredBytes ?? (text.length > REPO_CONFIG_MAX_BYTES ? Buffer.byteLength(text) : 0);
  if (bytes > REPO_CONFIG_MAX_BYTES) {
    return fail(`${bytes} bytes, more than the ${REPO_CONFIG_MAX_BYTES} a repository file may hold; not read`);
  }
  let read: ReturnType<typeof readEntries>;
  try {
    read = readEntries(text);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (read.fault !== undefined) return fail(read.fault, read.entries);
  if (read.entries.length === 0) return { config: base };
  try {
    return { config: applyConfig(base, Object.fromEntries(read.entries)) };
  } catch (err) {
    return fail((err as Error).message, read.entries);
  }
}

export { globMatch } from '../util/glob.js';
