import { createHash } from 'node:crypto';
import type { HttpAnswer, HttpRequest } from '../http/lambda-http.js';
import type { SignalKind } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import { mapBounded } from '../util/bounded.js';
import { parseInstant } from '../util/iso-time.js';
import type { RunnerSignals } from '../ledger/runner-signals.js';
import type { ScopedSecret, SignalScope } from '../config/signal-scope.js';
import type { RunnerJobs } from '../ledger/runner-jobs.js';
import { type RecoveryRequests, requestRecovery } from './request-recovery.js';
import { authorizeSignal, DEFAULT_TIMESTAMP_TOLERANCE_MS, type SignalAuth } from './signal-auth.js';
import { scopeWarning } from '../config/signal-settings.js';

/** The largest `POST /signals` body read; a larger one is refused (413) before it is parsed. */
export const MAX_SIGNAL_BODY_BYTES = 64 * 1024;
/** The most runner names one post may carry. */
export const MAX_RUNNERS = 100;
/** The longest runner name or instance id a post may carry. */
export const MAX_NAME_LENGTH = 256;
/** The longest free-text reason a post may carry. */
export const MAX_REASON_LENGTH = 1024;
/** A post without `time` that repeats an event id within this horizon is a retry and keeps the first time. */
export const RETRY_HORIZON_MS = 15 * 60_000;
/** An agent's clock may run ahead a little; a time further out is a mistake. */
const MAX_CLOCK_AHEAD_MS = 60 * 60_000;
const WRITE_CONCURRENCY = 10;
/** The `source` of a signal an agent posted (as opposed to EC2's `aws.ec2`). */
export const AGENT_SIGNAL_SOURCE = 'agent';

/** The kinds an agent may post; `node-termination` is recorded as `external` (see `recordedKind`). */
export const AGENT_KINDS = ['spot-interruption', 'terminated', 'external', 'node-termination', 'rebalance'] as const;
/** One kind an agent may post. */
export type AgentKind = (typeof AGENT_KINDS)[number];

/**
 * How an agent's kind is recorded. `node-termination` (a drain before the node goes away, for
 * whatever cause: spot, scheduled maintenance, scale-in) is `external`; the agent's own kind is
 * kept in the reason. `rebalance` stays a risk, never enough on its own.
 */
export function recordedKind(kind: AgentKind): SignalKind {
  return kind === 'node-termination' ? 'external' : kind;
}

/** A validated `POST /signals` body. */
export interface SignalPost {
  readonly runners: readonly string[];
  readonly instanceId?: string;
  readonly kind: AgentKind;
  readonly reason?: string;
  readonly eventId?: string;
  readonly time?: string;
}

/** A post checked field by field: the post, or the status and the field at fault. */
export type SignalPostParse =
  { readonly post: SignalPost } | { readonly status: 400 | 413; readonly field: string; readonly error: string };

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

const bad = (field: string, error: string, status: 400 | 413 = 400): SignalPostParse => ({ status, field, error });

/** Validates the whole body before anything is written. Unknown fields are ignored. */
export function parseSignalPost(body: unknown, nowMs: number): SignalPostParse {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('body', 'expected a JSON object');
  const b = body as Record<string, unknown>;

  const runners = b.runners;
  if (!Array.isArray(runners) || runners.length === 0) return bad('runners', 'expected a non-empty array of names');
  if (runners.length > MAX_RUNNERS) return bad('runners', `at most ${MAX_RUNNERS} runners per post`, 413);
  for (const [i, name] of runners.entries()) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
      return bad('runners', `runners[${i}]: expected a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
    }
  }

  if (typeof b.kind !== 'string' || !(AGENT_KINDS as readonly string[]).includes(b.kind)) {
    return bad('kind', `expected one of ${AGENT_KINDS.join(', ')}`);
  }

  // NTH renders an unknown instance id as "": treat it as absent rather than lose the signal.
  const instanceId = b.instance_id === '' || b.instance_id === null ? undefined : b.instance_id;
  if (instanceId !== undefined && (typeof instanceId !== 'string' || !INSTANCE_ID.test(instanceId))) {
    return bad('instance_id', 'expected an EC2 instance id (i-…)');
  }
  if (b.reason !== undefined && (typeof b.reason !== 'string' || b.reason.length > MAX_REASON_LENGTH)) {
    return bad('reason', `expected a string of at most ${MAX_REASON_LENGTH} characters`);
  }
  if (
    b.event_id !== undefined &&
    (typeof b.event_id !== 'string' || b.event_id.trim() === '' || b.event_id.length > MAX_NAME_LENGTH)
  ) {
    return bad('event_id', `expected a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
  }
  if (b.time !== undefined) {
    const at =
      typeof b.time === 'string'
        ? parseInstant(b.time)
        : { error: 'expected an ISO 8601 time with a zone, e.g. 2026-10-02T16:15:05Z' };
    if ('error' in at) return bad('time', at.error);
    if (at.ms > nowMs + MAX_CLOCK_AHEAD_MS) return bad('time', 'more than an hour in the future');
  }

  return {
    post: {
      runners: [...new Set(runners as string[])],
      kind: b.kind as AgentKind,
      ...(instanceId !== undefined && { instanceId: instanceId as string }),
      ...(b.reason !== undefined && b.reason !== '' && { reason: b.reason as string }),
      ...(b.event_id !== undefined && { eventId: b.event_id as string }),
      ...(b.time !== undefined && { time: b.time as string }),
    },
  };
}

/** The event id of a post that names none: a retry of the same content gets the same id. */
export function derivedEventId(post: SignalPost): string {
  const content = JSON.stringify([
    [...post.runners].sort(),
    post.instanceId ?? null,
    post.kind,
    post.reason ?? null,
    post.time ?? null,
  ]);
  return `sha256-${createHash('sha256').update(content).digest('hex').slice(0, 32)}`;
}

/** Where signal records go, the first receipt of a post that carries no time, and the signatures used. */
export type SignalIntakeStore = Pick<RunnerSignals, 'record' | 'firstSeen'> & Partial<Pick<RunnerSignals, 'firstUse'>>;

/** What `POST /signals` needs: its secrets, the signal store, the jobs on a runner and where recovery requests go. */
export interface SignalIntakeDeps {
  /** The current secret first, then the previous one during a rotation; a plain string speaks for every installation. */
  readonly secrets: () => Promise<readonly (string | ScopedSecret)[]>;
  readonly store: SignalIntakeStore;
  readonly log: Log;
  readonly metrics: MetricSink;
  readonly now?: () => number;
  /** How far an HMAC post's timestamp may be from now; five minutes when absent. */
  readonly toleranceMs?: number;
  /** Jobs known to run on a runner, whose runs early recovery may end; none asked for when absent. */
  readonly jobs?: Pick<RunnerJobs, 'runningOn'>;
  /** Where a request to end such a job's run early goes. */
  readonly recovery?: RecoveryRequests;
}

const answer = (status: number, body: Record<string, unknown>): HttpAnswer => ({ status, body });

type Secrets = readonly (string | ScopedSecret)[];
type Authorized = Exclude<SignalAuth, { readonly refused: string }>;

/** The secrets that can sign a post, or the 503 that says the intake cannot check one. */
async function usableSecrets(deps: SignalIntakeDeps): Promise<Secrets | HttpAnswer> {
  let secrets: Secrets;
  try {
    secrets = (await deps.secrets()).filter((x) => (typeof x === 'string' ? x : x.secret));
  } catch (err) {
    deps.log.error('signal secret unavailable', { error: (err as Error).message });
    return answer(503, { error: 'signal secret unavailable' });
  }
  if (secrets.length === 0) {
    deps.log.error('no signal secret configured; refusing POST /signals');
    return answer(503, { error: 'signal intake not configured' });
  }
  return secrets;
}

/** The secret the post speaks as, or the 401 that refuses it (counted, and logged without the credentials). */
function authorized(
  deps: SignalIntakeDeps,
  secrets: Secrets,
  req: HttpRequest,
  nowMs: number,
): Authorized | HttpAnswer {
  const auth = authorizeSignal(
    secrets,
    req.headers,
    req.body,
    nowMs,
    deps.toleranceMs ?? DEFAULT_TIMESTAMP_TOLERANCE_MS,
  );
  if (!('refused' in auth)) return auth;
  deps.metrics.count('SignalAuthFailure');
  deps.log.warn('signal post rejected: bad or missing credentials', {
    error: auth.refused,
    has_authorization: req.headers.authorization !== undefined,
    has_signature: req.headers['x-reprise-signature-256'] !== undefined,
    has_timestamp: req.headers['x-reprise-timestamp'] !== undefined,
  });
  return answer(401, { error: auth.refused });
}

/** The post, or the 400 (413) that names the field at fault. */
function parsedPost(deps: SignalIntakeDeps, req: HttpRequest, nowMs: number): SignalPost | HttpAnswer {
  let body: unknown;
  try {
    body = JSON.parse(req.body.toString('utf8'));
  } catch {
    return answer(400, { error: 'body is not JSON', field: 'body' });
  }
  const parsed = parseSignalPost(body, nowMs);
  if (!('status' in parsed)) return parsed.post;
  deps.log.warn('signal post refused', { field: parsed.field, error: parsed.error });
  return answer(parsed.status, { error: `${parsed.field}: ${parsed.error}`, field: parsed.field });
}

/** A signature counts once: the same signed body posted again within the window is a replay (409). */
async function replayRefusal(deps: SignalIntakeDeps, auth: Authorized): Promise<HttpAnswer | undefined> {
  if (auth.via !== 'hmac' || !deps.store.firstUse) return undefined;
  const tolerance = deps.toleranceMs ?? DEFAULT_TIMESTAMP_TOLERANCE_MS;
  if (await deps.store.firstUse(auth.signature, auth.timestampMs + tolerance)) return undefined;
  deps.metrics.count('SignalReplayRefused');
  deps.log.warn('signal post refused: replayed signature', { timestamp: auth.timestampMs / 1000 });
  return answer(409, { error: 'this signature was already used: sign each post afresh', field: 'signature' });
}

/**
 * Records the post under each runner key it names, in the secret's scope, and asks for the early
 * recovery of the jobs running there; answers the record's event id and time.
 */
async function recordPost(
  deps: SignalIntakeDeps,
  post: SignalPost,
  scope: SignalScope,
  nowMs: number,
): Promise<HttpAnswer> {
  const kind = recordedKind(post.kind);
  const eventId = post.eventId ?? derivedEventId(post);
  // One ISO form, as the store keeps it, so the answer names the record's time.
  const eventTime = post.time
    ? new Date(post.time).toISOString()
    : await deps.store.firstSeen(eventId, nowMs, RETRY_HORIZON_MS, scope);
  const reason = kind === post.kind ? post.reason : [post.kind, post.reason].filter(Boolean).join(': ');
  const keys = [...new Set([...post.runners, ...(post.instanceId ? [post.instanceId] : [])])];

  const { results } = await mapBounded(keys, WRITE_CONCURRENCY, (runnerKey) =>
    deps.store.record({
      runnerKey,
      kind,
      eventTime,
      eventId,
      source: AGENT_SIGNAL_SOURCE,
      scope,
      ...(post.instanceId && { instanceId: post.instanceId }),
      ...(reason && { reason }),
    }),
  );
  const recorded = results.filter(Boolean).length;
  for (let i = 0; i < recorded; i++) deps.metrics.count('SignalRecorded', 1, { name: 'kind', value: kind });
  // The worker proves each request against the signals the scope lets count for the job's owner.
  if (deps.jobs) await requestRecovery(await deps.jobs.runningOn(keys), { kind, eventId }, deps.recovery);
  deps.log.info('agent signal recorded', {
    kind,
    agent_kind: post.kind,
    event_id: eventId,
    event_time: eventTime,
    instance_id: post.instanceId,
    runners: keys.length,
    scope: scope.join(','),
    recorded,
  });
  return answer(202, { recorded, event_id: eventId, event_time: eventTime });
}

const isAnswer = (x: object): x is HttpAnswer => 'status' in x && 'body' in x;

/**
 * `POST /signals`: runner-loss reports from agents outside EC2 events (Node Termination
 * Handler, a Karpenter hook, a runner's shutdown hook). Everything is validated before the
 * first write, so a refused post leaves nothing behind.
 */
export function createSignalIntake(deps: SignalIntakeDeps): (req: HttpRequest) => Promise<HttpAnswer> {
  const now = deps.now ?? Date.now;
  // Once per scope and process: a group scope with no owner crosses organisations.
  const warned = new Set<string>();
  return async (req) => {
    if (req.body.length > MAX_SIGNAL_BODY_BYTES) {
      return answer(413, { error: `body over ${MAX_SIGNAL_BODY_BYTES} bytes`, field: 'body' });
    }
    const secrets = await usableSecrets(deps);
    if (!Array.isArray(secrets)) return secrets as HttpAnswer;
    const auth = authorized(deps, secrets, req, now());
    if (isAnswer(auth)) return auth;
    const nowMs = now();
    const post = parsedPost(deps, req, nowMs);
    if (isAnswer(post)) return post;
    const replay = await replayRefusal(deps, auth);
    if (replay) return replay;

    const scope = auth.secret.scope;
    const warning = scopeWarning(scope);
    if (warning && !warned.has(warning)) {
      warned.add(warning);
      deps.log.warn(warning);
    }
    return recordPost(deps, post, scope, nowMs);
  };
}
