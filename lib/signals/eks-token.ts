import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, Checksum, SourceData } from '@smithy/types';

/**
 * The bearer token an EKS cluster takes from an IAM principal, as `aws eks get-token` and
 * aws-iam-authenticator make it: `k8s-aws-v1.` and the base64url (unpadded) of a presigned STS
 * `GetCallerIdentity` URL whose signed headers include `x-k8s-aws-id: <cluster name>`. EKS calls
 * the URL to learn who the caller is; the signature binds it to one cluster and 60 seconds.
 */

export const TOKEN_PREFIX = 'k8s-aws-v1.';
/** What `aws eks get-token` presigns for: the URL is good for a minute. */
export const TOKEN_URL_EXPIRY_SECONDS = 60;

/** SHA-256 (or its HMAC) for the signer, from node:crypto. */
class Sha256 implements Checksum {
  private hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const toBytes = (d: SourceData): Uint8Array =>
  typeof d === 'string'
    ? Buffer.from(d, 'utf8')
    : ArrayBuffer.isView(d)
      ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
      : new Uint8Array(d);

/** What a presigned EKS token is made from: the cluster, the region, the credentials and the time. */
export interface TokenInput {
  readonly cluster: string;
  /** The region of the STS endpoint (the function's own). */
  readonly region: string;
  readonly credentials: AwsCredentialIdentity;
  /** When the URL is signed; now when absent. */
  readonly signingDate?: Date;
}

/** A token for `cluster`, signed with `credentials` (the function's role) for the regional STS endpoint. */
export async function eksToken(input: TokenInput): Promise<string> {
  const signer = new SignatureV4({
    credentials: input.credentials,
    region: input.region,
    service: 'sts',
    sha256: Sha256,
  });
  const hostname = `sts.${input.region}.amazonaws.com`;
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, 'x-k8s-aws-id': input.cluster },
    },
    { expiresIn: TOKEN_URL_EXPIRY_SECONDS, ...(input.signingDate && { signingDate: input.signingDate }) },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}
