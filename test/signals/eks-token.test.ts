import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eksToken, TOKEN_PREFIX } from '../../lib/signals/eks-token.js';

/** The example credentials of the AWS SigV4 documentation: never real. */
const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-of-the-role',
};
const signingDate = new Date('2026-10-02T16:13:05Z');

const decode = (token: string): URL => new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString());

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * SigV4 query authentication recomputed from the AWS General Reference, apart from the signer
 * the code uses: what STS would check when EKS calls the URL.
 */
function expectedSignature(url: URL, cluster: string, secret: string): string {
  const q = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const canonicalQuery = q
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [
    'GET',
    '/',
    canonicalQuery,
    `host:${url.host}\nx-k8s-aws-id:${cluster}\n`,
    'host;x-k8s-aws-id',
    sha256(''),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') as string;
  const [, scope] = /^[^/]+\/(.*)$/.exec(url.searchParams.get('X-Amz-Credential') as string) ?? [];
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const [day, region, service] = (scope as string).split('/');
  const key = ['aws4_request'].reduce(
    (k, part) => hmac(k, part),
    hmac(hmac(hmac(`AWS4${secret}`, day as string), region as string), service as string),
  );
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('eksToken: what `aws eks get-token` prints, from the function role', () => {
  it('is k8s-aws-v1. and the unpadded base64url of a presigned STS GetCallerIdentity URL', async () => {
    const token = await eksToken({ cluster: 'runners', region: 'eu-west-1', credentials, signingDate });
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    expect(token.slice(TOKEN_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    const url = decode(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20261002/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20261002T161305Z',
      'X-Amz-Expires': '60',
      'X-Amz-SignedHeaders': 'host;x-k8s-aws-id',
      'X-Amz-Security-Token': 'session-token-of-the-role',
    });
  });

  it('is signed for the cluster named in x-k8s-aws-id, as STS recomputes it', async () => {
    const token = await eksToken({ cluster: 'runners', region: 'eu-west-1', credentials, signingDate });
    const url = decode(token);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(url, 'runners', credentials.secretAccessKey),
    );
    // The same URL does not hold for another cluster: the header is part of the signature.
    expect(url.searchParams.get('X-Amz-Signature')).not.toBe(
      expectedSignature(url, 'other', credentials.secretAccessKey),
    );
  });

  it('differs per cluster and per minute', async () => {
    const a = await eksToken({ cluster: 'runners', region: 'eu-west-1', credentials, signingDate });
    const b = await eksToken({ cluster: 'batch', region: 'eu-west-1', credentials, signingDate });
    const c = await eksToken({
      cluster: 'runners',
      region: 'eu-west-1',
      credentials,
      signingDate: new Date(signingDate.getTime() + 60_000),
    });
    expect(new Set([a, b, c]).size).toBe(3);
  });
});
