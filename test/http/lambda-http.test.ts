import { describe, expect, it } from 'vitest';
import { fromLambdaEvent, type HttpRequest, httpLambda, toLambdaResult } from '../../lib/http/lambda-http.js';
import { webhookEvent } from '../support/webhooks.js';

const BODY = '{"zen":"Keep it logically awesome.","emoji":"✅"}';

describe('fromLambdaEvent', () => {
  it('a base64 body (API Gateway) comes back as the exact bytes sent', () => {
    const req = fromLambdaEvent(
      webhookEvent({}, { body: Buffer.from(BODY, 'utf8').toString('base64'), isBase64Encoded: true }),
    );
    expect(req.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
  });

  it('a plain body (a function URL) comes back as its UTF-8 bytes', () => {
    const req = fromLambdaEvent(webhookEvent({}, { body: BODY, isBase64Encoded: false }));
    expect(req.body.toString('utf8')).toBe(BODY);
    expect(req.body.length).toBe(Buffer.byteLength(BODY));
  });

  it('no body is an empty one, never a throw', () => {
    expect(fromLambdaEvent(webhookEvent({}, { isBase64Encoded: false })).body.length).toBe(0);
  });

  it('header names are lowercased, values kept; the method and the raw path come from the event', () => {
    const req = fromLambdaEvent(
      webhookEvent(
        { 'X-GitHub-Event': 'workflow_run', 'X-Hub-Signature-256': 'sha256=AbC' },
        { isBase64Encoded: false },
      ),
    );
    expect(req.headers).toEqual({ 'x-github-event': 'workflow_run', 'x-hub-signature-256': 'sha256=AbC' });
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/webhook');
  });
});

describe('toLambdaResult and httpLambda', () => {
  it('the answer is JSON with its status', () => {
    expect(toLambdaResult({ status: 202, body: { reason: 'queued' } })).toEqual({
      statusCode: 202,
      headers: { 'content-type': 'application/json' },
      body: '{"reason":"queued"}',
    });
  });

  it('the wrapped handler sees the request as sent and its answer goes back as the Lambda result', async () => {
    const seen: HttpRequest[] = [];
    const handler = httpLambda(async (req) => {
      seen.push(req);
      return { status: 400, body: { error: `bad ${req.body.toString('utf8')}` } };
    });
    const result = await handler(webhookEvent({ 'Content-Type': 'text/plain' }, { body: 'x', isBase64Encoded: false }));
    expect(seen[0]!.headers['content-type']).toBe('text/plain');
    expect(result).toEqual({
      statusCode: 400,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"bad x"}',
    });
  });
});
