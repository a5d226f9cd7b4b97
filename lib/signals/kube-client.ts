import { request } from 'node:https';

/**
 * The few read requests the EC2 signal makes to a cluster's Kubernetes API: HTTPS against the
 * cluster's own CA (never the system's, never unverified), a bearer token, a deadline.
 */

/** Where a cluster's API is and how to speak to it. */
export interface KubeEndpoint {
  /** `https://…` without a trailing path. */
  readonly endpoint: string;
  /** The cluster CA's certificate(s), PEM. */
  readonly caPem: string;
  /** The bearer token; asked for each request, so a short-lived one is always fresh. */
  readonly token: () => Promise<string>;
}

/** A request the API refused or never answered: `status` is the HTTP status, absent when none came back. */
export class KubeApiError extends Error {
  override name = 'KubeApiError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Reads one JSON document; throws a KubeApiError naming the status and the API's own reason. */
export async function kubeGet<T>(api: KubeEndpoint, path: string, timeoutMs: number): Promise<T> {
  const token = await api.token();
  const url = new URL(path, api.endpoint.replace(/\/+$/, '') + '/');
  if (url.protocol !== 'https:') throw new KubeApiError(`${api.endpoint}: the Kubernetes API must be https`);
  return new Promise<T>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        ca: api.caPem,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) =>
          reject(new KubeApiError(`${url.pathname}: ${err.message}`, undefined, { cause: err })),
        );
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            reject(new KubeApiError(`${status} ${statusReason(text) ?? res.statusMessage ?? ''}`.trim(), status));
            return;
          }
          try {
            resolve(JSON.parse(text) as T);
          } catch {
            reject(new KubeApiError(`${url.pathname}: answered ${status} with a body that is not JSON`, status));
          }
        });
      },
    );
    // One deadline for the whole request: a connection that hangs after its headers ends too.
    const deadline = setTimeout(() => req.destroy(new KubeApiError(`timed out after ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new KubeApiError(`timed out after ${timeoutMs} ms`)));
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (err) =>
      reject(err instanceof KubeApiError ? err : new KubeApiError(err.message, undefined, { cause: err })),
    );
    req.end();
  });
}

/** The `message` of a Kubernetes `Status` body (`pods is forbidden: User "…" cannot list …`). */
function statusReason(text: string): string | undefined {
  try {
    const doc = JSON.parse(text) as { kind?: unknown; message?: unknown };
    return typeof doc.message === 'string' ? doc.message.slice(0, 300) : undefined;
  } catch {
    return text.trim().slice(0, 200) || undefined;
  }
}
