import type { FileRead } from './repo-answers.js';
import { type RepoRequests, statusOf } from './repo-requests.js';

/** How a repository file is read: which repository, the ETag held, and the largest size decoded. */
export interface FileReadOptions {
  /** Another repository of the same owner (the owner's `.github`); this one when absent. */
  readonly repo?: string;
  /** The ETag of the copy held: an unchanged file answers 304. */
  readonly etag?: string;
  /** A file larger than this (by the size GitHub declares) is not decoded. */
  readonly maxBytes?: number;
}

/** A file of the repository, or of another repository of the same owner: found, oversized, unchanged or absent. */
export async function readRepoFile(
  calls: RepoRequests,
  path: string,
  { repo = calls.repo, etag, maxBytes }: FileReadOptions = {},
): Promise<FileRead> {
  try {
    const res = await calls.rest('GET /repos/{owner}/{repo}/contents/{path}', {
      owner: calls.owner,
      repo,
      path,
      headers: etag ? { 'if-none-match': etag } : {},
      // Parsed here with JSON.parse: the client's own parser (big integers kept) takes a
      // hundred milliseconds of the process for a file near GitHub's 1 MB of content.
      request: { parseSuccessResponseBody: false },
    });
    const data = JSON.parse(await new Response(res.data as unknown as ReadableStream).text()) as {
      content?: string;
      size?: number;
    };
    const tag = res.headers.etag ? { etag: res.headers.etag } : {};
    if (maxBytes !== undefined && typeof data.size === 'number' && data.size > maxBytes) {
      return { kind: 'oversized', bytes: data.size, ...tag };
    }
    const text = data.content ? Buffer.from(data.content, 'base64').toString('utf8') : '';
    return { kind: 'found', text, ...tag };
  } catch (err) {
    const status = statusOf(err);
    if (status === 304 && etag) return { kind: 'unchanged' };
    if (status === 404) return { kind: 'absent' };
    throw err;
  }
}
