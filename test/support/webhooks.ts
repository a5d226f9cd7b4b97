import { sign } from '@octokit/webhooks-methods';
import examples from '@octokit/webhooks-examples';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { GitHubSimulator } from '../sim/index.js';

type Payload = Record<string, unknown>;

interface ExampleGroup {
  name: string;
  examples: Payload[];
}

/** The real `workflow_run` / `workflow_job` payloads GitHub's docs ship, untouched. */
export function realExamples(event: 'workflow_run' | 'workflow_job'): Payload[] {
  const group = (examples as unknown as ExampleGroup[]).find((g) => g.name === event);
  if (!group) throw new Error(`no ${event} examples in @octokit/webhooks-examples`);
  return group.examples.map((e) => structuredClone(e));
}

const completedTemplate = (): Payload => {
  const found = realExamples('workflow_run').find((e) => e.action === 'completed');
  if (!found) throw new Error('no completed workflow_run example');
  return found;
};

/**
 * A `workflow_run.completed` delivery for a simulator run: the real example payload with the
 * run, repository and installation the simulator serves.
 */
export function workflowRunPayload(sim: GitHubSimulator, runId: number, installationId = 4242): Payload {
  const base = completedTemplate();
  const run = sim.workflowRunJson(runId) as unknown as Payload & { repository: Payload };
  return {
    ...base,
    action: 'completed',
    workflow_run: run,
    repository: { ...(base.repository as Payload), ...run.repository },
    installation: { id: installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==' },
  };
}

export interface SignedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

export async function signedDelivery(
  secret: string,
  event: string,
  payload: unknown,
  guid: string = randomUUID(),
): Promise<SignedDelivery> {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': guid,
      'x-hub-signature-256': await sign(secret, body),
      'user-agent': 'GitHub-Hookshot/reprise-test',
    },
  };
}

/** Posts a delivery to a running intake (the local runtime's `/webhook`). */
export async function post(url: string, d: SignedDelivery): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: d.headers, body: d.body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The API Gateway HTTP API (payload 2.0) event for `POST /webhook` that carries `body` as given:
 * API Gateway base64-encodes a JSON body, so callers pass it encoded with `isBase64Encoded`.
 */
export function webhookEvent(
  headers: Record<string, string>,
  body: { readonly body?: string; readonly isBase64Encoded: boolean },
  requestId = 'r',
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /webhook',
    rawPath: '/webhook',
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'api',
      http: {
        method: 'POST',
        path: '/webhook',
        protocol: 'HTTP/1.1',
        sourceIp: '140.82.115.1',
        userAgent: 'GitHub-Hookshot/1',
      },
      requestId,
      routeKey: 'POST /webhook',
      stage: '$default',
      time: '02/Dec/2026:12:00:00 +0000',
      timeEpoch: 1_796_212_800_000,
    },
    isBase64Encoded: body.isBase64Encoded,
    ...(body.body !== undefined && { body: body.body }),
  };
}
