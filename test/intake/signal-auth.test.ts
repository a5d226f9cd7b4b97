import { describe, expect, it } from 'vitest';
import { authorizeSignal, DEFAULT_TIMESTAMP_TOLERANCE_MS, signalSignature } from '../../lib/intake/signal-auth.js';

const NOW = Date.parse('2026-10-02T16:14:00Z');
const body = Buffer.from('{"kind":"terminated","runners":["ghr-1"]}');
const ts = String(NOW / 1000);
const acme = { secret: 'acme-secret', scope: ['acme'] };

describe('authorizeSignal: which secret a post speaks as', () => {
  it('a bearer token names its secret and that secret’s scope; a plain string secret speaks for every installation', () => {
    expect(authorizeSignal([acme], { authorization: 'Bearer acme-secret' }, body, NOW)).toEqual({
      secret: acme,
      via: 'bearer',
    });
    expect(authorizeSignal(['plain'], { authorization: 'bearer plain' }, body, NOW)).toEqual({
      secret: { secret: 'plain', scope: ['*'] },
      via: 'bearer',
    });
  });

  it('an HMAC over `<timestamp>.<body>` names the secret that signed it, within the tolerance only', () => {
    const headers = { 'x-reprise-timestamp': ts, 'x-reprise-signature-256': signalSignature('acme-secret', ts, body) };
    expect(authorizeSignal(['other', acme], headers, body, NOW)).toMatchObject({
      secret: acme,
      via: 'hmac',
      timestampMs: NOW,
    });
    const late = authorizeSignal([acme], headers, body, NOW + DEFAULT_TIMESTAMP_TOLERANCE_MS + 1000);
    expect(late).toMatchObject({ refused: expect.stringMatching(/sign the post afresh/) });
    // Another body under the same signature is not the post that was signed.
    expect(authorizeSignal([acme], headers, Buffer.from('{}'), NOW)).toHaveProperty('refused');
  });

  it('a wrong token, or a signature without its timestamp, is refused with the reason', () => {
    expect(authorizeSignal([acme], { authorization: 'Bearer nope' }, body, NOW)).toHaveProperty('refused');
    expect(authorizeSignal([acme], { 'x-reprise-signature-256': 'sha256=00' }, body, NOW)).toMatchObject({
      refused: expect.stringMatching(/X-Reprise-Timestamp missing/),
    });
  });
});
