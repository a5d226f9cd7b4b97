import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, LambdaFunctionURLEvent } from 'aws-lambda';

/**
 * GitHub sends payloads of up to 25 MB, but a Lambda function receives at most 6 MB (and an
 * HTTP API at most 10 MB): the intake refuses what the deployed one could never receive, so
 * the local runtime answers a large body the same way. `workflow_run` payloads are tens of KB.
 */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

/** A request as the handlers see it, whatever entry point it came through (API Gateway or a function URL). */
export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  /** Header names lowercased. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body bytes exactly as sent: signatures are computed over them. */
  readonly body: Buffer;
}

/** A handler's answer: a status and a JSON body. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** API Gateway HTTP API (payload v2) and Lambda function URL events share this shape. */
export type HttpEvent = APIGatewayProxyEventV2 | LambdaFunctionURLEvent;

/** The request a handler reads, from the Lambda HTTP event: lower-case headers, the body's bytes (base64 decoded). */
export function fromLambdaEvent(event: HttpEvent): HttpRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) headers[k.toLowerCase()] = v;
  const raw = event.body ?? '';
  return {
    method: event.requestContext.http.method,
    path: event.rawPath,
    headers,
    body: event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8'),
  };
}

/** The Lambda HTTP result of a handler's answer, as JSON. */
export function toLambdaResult(answer: HttpAnswer): APIGatewayProxyResultV2 {
  return {
    statusCode: answer.status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(answer.body),
  };
}

/** Wraps a request handler as the Lambda handler API Gateway and function URLs call. */
export const httpLambda =
  (fn: (req: HttpRequest) => Promise<HttpAnswer>) =>
  async (event: HttpEvent): Promise<APIGatewayProxyResultV2> =>
    toLambdaResult(await fn(fromLambdaEvent(event)));
