import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { ShapeError } from '../errors.js';
import type { Replay } from '../compose/replay.js';
import type { Ec2SignalRecorder } from '../compose/signals.js';
import type { Ledger } from '../ledger/ledger.js';
import { parsePauseScope, type PauseRequest, type PauseScope } from '../ledger/pauses.js';
import type { RunMessage } from '../model.js';
import type { Log } from '../obs/types.js';
import type { Ec2Event } from '../signals/ec2-events.js';
import { withoutMessage } from '../records.js';
import { parseRunMessage } from '../webhook/run-message.js';
import type { LambdaHttpHandler } from './http-server.js';

/** What the operator routes read and act on. */
export interface AdminDeps {
  /** With `pauses`, the routes of `reprise pause` and `reprise resume` are served. */
  readonly ledger: Pick<Ledger, 'decisions' | 'report'> & Partial<Pick<Ledger, 'pauses' | 'eksListings'>>;
  /** Sends a run attempt for a new decision, the ledger's guard first (lib/compose/replay.ts). */
  readonly replay: Replay;
  /** Moves every dead letter back to the queue, their abandoned records given back (`reprise replay --dead-letters`). */
  readonly redrive?: () => Promise<{ readonly redriven: number; readonly released: number }>;
  /** The EC2 signal function's recorder: an EventBridge event as AWS delivers it, recorded before the answer. */
  readonly ec2Events?: Ec2SignalRecorder;
  readonly log: Log;
}

const reply = (statusCode: number, body: unknown): APIGatewayProxyResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const bodyText = (e: APIGatewayProxyEventV2): string =>
  e.isBase64Encoded ? Buffer.from(e.body ?? '', 'base64').toString('utf8') : (e.body ?? '');

/** A whole number query parameter, or an error text. */
function intParam(q: URLSearchParams, key: string): number | undefined | string {
  const raw = q.get(key);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : `${key}: expected a whole number, got "${raw}"`;
}

/** The operator's routes, by `METHOD /path`. */
export type AdminRoute =
  | 'GET /decisions'
  | 'GET /report-facts'
  | 'GET /eks-listings'
  | 'POST /replay'
  | 'POST /redrive'
  | 'POST /ec2-events'
  | 'GET /pauses'
  | 'POST /pause'
  | 'POST /resume';

/**
 * Operator routes of the local runtime, for `reprise decisions`, `reprise report` and `reprise replay` (a run, or `--dead-letters`).
 * Served only by the local runtime (which binds 127.0.0.1 by default), never deployed.
 */
export function adminRoutes(deps: AdminDeps): Record<AdminRoute, LambdaHttpHandler> {
  return { ...readRoutes(deps), ...queueRoutes(deps), ...pauseRoutes(deps) };
}

/** What the ledger holds, read: the decisions, the report's facts, the EKS listings. */
function readRoutes(
  deps: AdminDeps,
): Record<'GET /decisions' | 'GET /report-facts' | 'GET /eks-listings', LambdaHttpHandler> {
  return {
    'GET /decisions': async (event) => {
      const q = new URLSearchParams(event.rawQueryString ?? '');
      const since = intParam(q, 'since');
      const limit = intParam(q, 'limit');
      if (typeof since === 'string') return reply(400, { error: since });
      if (typeof limit === 'string') return reply(400, { error: limit });
      const repository = q.get('repo') || undefined;
      const records = await deps.ledger.decisions.list({
        ...(repository && { repository }),
        ...(since !== undefined && { sinceMs: since }),
        ...(limit !== undefined && { limit }),
      });
      return reply(200, { decisions: records.map(withoutMessage) });
    },
    'GET /report-facts': async (event) => {
      const since = intParam(new URLSearchParams(event.rawQueryString ?? ''), 'since');
      if (typeof since !== 'number') return reply(400, { error: since ?? 'since: required (epoch ms)' });
      return reply(200, await deps.ledger.report.facts(since));
    },
    'GET /eks-listings': async () => reply(200, { clusters: (await deps.ledger.eksListings?.list()) ?? [] }),
  };
}

/** What puts work on the queue: a replay, the dead letters' redrive, an EC2 event as EventBridge delivers it. */
function queueRoutes(
  deps: AdminDeps,
): Record<'POST /replay' | 'POST /redrive' | 'POST /ec2-events', LambdaHttpHandler> {
  return {
    'POST /replay': (event) => replayRoute(deps, bodyText(event)),
    'POST /redrive': async () => {
      if (!deps.redrive) return reply(404, { error: 'this runtime has no dead-letter queue' });
      const done = await deps.redrive();
      deps.log.info('dead-letter queue redriven', { ...done });
      return reply(200, done);
    },
    // The local twin of the EventBridge rules: the same event, the same recorder as the deployed function.
    'POST /ec2-events': (event) => ec2EventRoute(deps, bodyText(event)),
  };
}

/** `POST /replay`: `{"message": <run message>, "force"?: boolean}`, answered with the replay's verdict. */
async function replayRoute(deps: AdminDeps, text: string): Promise<APIGatewayProxyResultV2> {
  let message: RunMessage;
  let force: boolean;
  try {
    const body = JSON.parse(text) as { message?: unknown; force?: unknown };
    message = parseRunMessage(JSON.stringify(body.message));
    force = body.force === true;
  } catch (err) {
    const why = err instanceof ShapeError ? err.message : 'body is not JSON';
    return reply(400, { error: `expected {"message": <run message>, "force"?: boolean}: ${why}` });
  }
  const verdict = await deps.replay(message, force);
  if (verdict.kind === 'enqueue') return reply(202, verdict);
  return reply(verdict.kind === 'already_decided' ? 200 : 409, verdict);
}

/** `POST /ec2-events`: one EventBridge event as a JSON object, recorded before the answer. */
async function ec2EventRoute(deps: AdminDeps, text: string): Promise<APIGatewayProxyResultV2> {
  if (!deps.ec2Events) return reply(404, { error: 'this runtime records no EC2 events' });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return reply(400, { error: 'expected one EventBridge event as JSON' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return reply(400, {
      error: 'expected one EventBridge event (a JSON object), as AWS delivers it to the function',
    });
  }
  return reply(200, await deps.ec2Events(body as Ec2Event));
}

/** The operator's off switch: list, pause and resume, where the ledger keeps pauses. */
function pauseRoutes(deps: AdminDeps): Record<'GET /pauses' | 'POST /pause' | 'POST /resume', LambdaHttpHandler> {
  const noPauses = reply(404, { error: 'this runtime keeps no pauses' });
  return {
    'GET /pauses': async () =>
      deps.ledger.pauses ? reply(200, { pauses: await deps.ledger.pauses.list() }) : noPauses,
    'POST /pause': async (event) => {
      if (!deps.ledger.pauses) return noPauses;
      const request = pauseRequest(bodyText(event));
      if (typeof request === 'string') return reply(400, { error: request });
      const done = await deps.ledger.pauses.pause(request);
      deps.log.warn('paused by the operator', { ...done.pause });
      return reply(200, done);
    },
    'POST /resume': async (event) => {
      if (!deps.ledger.pauses) return noPauses;
      const scope = pauseScopeOf(bodyText(event));
      if (scope === undefined) return reply(400, { error: 'expected {"scope": "*" | OWNER | OWNER/REPO}' });
      const resumed = await deps.ledger.pauses.resume(scope);
      if (resumed) deps.log.warn('resumed by the operator', { ...resumed });
      return reply(200, { resumed: resumed ?? null });
    },
  };
}

/** `{"scope": …}` as a pause scope, or undefined when the body does not name one. */
function pauseScopeOf(text: string): PauseScope | undefined {
  try {
    const body = JSON.parse(text) as { scope?: unknown };
    return typeof body.scope === 'string' ? parsePauseScope(body.scope) : undefined;
  } catch {
    return undefined;
  }
}

/** A `POST /pause` body as a request, or the error text. */
function pauseRequest(text: string): PauseRequest | string {
  const wanted = 'expected {"scope", "by", "reason", "forMs"?}';
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `${wanted}: body is not JSON`;
  }
  const scope = pauseScopeOf(text);
  const { by, reason, forMs } = body;
  if (scope === undefined || typeof by !== 'string' || typeof reason !== 'string' || reason.trim() === '') {
    return `${wanted}, each a string, the reason not empty`;
  }
  if (forMs !== undefined && !(typeof forMs === 'number' && Number.isInteger(forMs) && forMs > 0)) {
    return `${wanted}: forMs is a whole number of milliseconds above 0`;
  }
  return { scope, by, reason, ...(forMs !== undefined && { forMs }) };
}
