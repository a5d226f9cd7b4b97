import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HttpAnswer, HttpRequest } from '../http/lambda-http.js';
import type { SignalKind } from '../model.js';
import type { Log, MetricSink } from '../obs/types.js';
import { mapBounded } from '../util/bounded.js';
import { parseInstant } from '../util/iso-time.js';
import type { RunnerSignals } from '../ledger/runner-signals.js';
import { ANY_OWNER, type ScopedSecret } from '../config/signal-scope.js';
import type { RunnerJobs } from '../ledger/runner-jobs.js';
import { type RecoveryRequests, requestRecovery } from './request-recovery.js';

export const MAX_SIGNAL_BODY_BYTES = 64 * 1024;
export const MAX_RUNNERS = 100;
export const MAX_NAME_LENGTH = 256;
export const MAX_REASON_LENGTH = 1024;
/** A post without `time` that repeats an event id within this horizon is a retry and keeps the first time. */
export const RETRY_HORIZON_MS = 15 * 60_000;
/** An agent's clock may run ahead a little; a time further out is a mistake. */
const MAX_CLOCK_AHEAD_MS = 60 * 60_000;
const WRITE_CONCURRENCY = 10;
export const AGENT_SIGNAL_SOURCE = 'agent';

export const AGENT_KINDS = ['spot-interruption', 'terminated', 'external', 'node-termination', 'rebalance'] as const;
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

// Digests have one length, so timingSafeEqual never throws and the length never leaks.
const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

/** How far an HMAC post's timestamp may be from the intake's clock when none is configured. */
export const DEFAULT_TIMESTAMP_TOLERANCE_MS = 300_000;

/** The HMAC a post carries: over `<timestamp>.<raw body>`, keyed with the secret. */
export const signalSignature = (secret: string, timestamp: string, body: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;

/** Who the post speaks as: the secret that signed it (with its scope), and how. */
export type SignalAuth =
  | { readonly secret: ScopedSecret; readonly via: 'bearer' }
  | { readonly secret: ScopedSecret; readonly via: 'hmac'; readonly signature: string; readonly timestampMs: number }
  | { readonly refused: string };

const asScoped = (s: string | ScopedSecret): ScopedSecret =>
  typeof s === 'string' ? { secret: s, scope: ANY_OWNER } : s;

/**
 * Which secret the bearer token or the HMAC matches. An HMAC signs `X-Reprise-Timestamp` (Unix
 * seconds) with the body, and counts only within `toleranceMs` of `nowMs`: a captured body
 * cannot be posted again later. (Replays within the window are the caller's to refuse.)
 */
export function authorizeSignal(
  secrets: readonly (string | ScopedSecret)[],
  headers: HttpRequest['headers'],
  body: Buffer,
  nowMs: number,
  toleranceMs: number = DEFAULT_TIMESTAMP_TOLERANCE_MS,
): SignalAuth {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.authorization ?? '')?.[1];
  const signature = headers['x-reprise-signature-256']?.trim().toLowerCase();
  const timestamp = headers['x-reprise-timestamp']?.trim();
  const wrong = { refused: 'missing or wrong bearer token or X-Reprise-Signature-256' };
  for (const s of secrets.map(asScoped)) {
    if (!s.secret) continue;
    if (bearer !== undefined && sameSecret(bearer, s.secret)) return { secret: s, via: 'bearer' };
  }
  if (signature === undefined) return wrong;
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) {
    return { refused: 'X-Reprise-Timestamp missing or not Unix seconds: an HMAC signs `<timestamp>.<body>`' };
  }
  const signer = secrets
    .map(asScoped)
    .find((s) => s.secret && sameSecret(signature, signalSignature(s.secret, timestamp, body)));
  if (!signer) return wrong;
  const timestampMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - timestampMs) > toleranceMs) {
    return {
      refused: `X-Reprise-Timestamp ${timestamp} is more than ${Math.round(toleranceMs / 1000)} s from now: sign the post afresh`,
    };
  }
  return { secret: signer, via: 'hmac', signature, timestampMs };
}

/** Where signal records go, the first receipt of a post that carries no time, and the signatures used. */
export type SignalIntakeStore = Pick<RunnerSignals, 'record' | 'firstSeen'> & Partial<Pick<RunnerSignals, 'firstUse'>>;

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

/**
 * `POST /signals`: runner-loss reports from agents outside EC2 events (Node Termination
 * Handler, a Karpenter hook, a runner's shutdown hook). Everything is validated before the
 * first write, so a refused post leaves nothing behind.
 */
export function createSignalIntake(deps: SignalIntakeDeps): (req: HttpRequest) => Promise<HttpAnswer> {
  const now = deps.now ?? Date.now;
  return async (req) => {
    if (req.body.length > MAX_SIGNAL_BODY_BYTES) {
      return answer(413, { error: `body over ${MAX_SIGNAL_BODY_BYTES} bytes`, field: 'body' });
    }
    let secrets: readonly (string | ScopedSecret)[];
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
    const tolerance = deps.toleranceMs ?? DEFAULT_TIMESTAMP_TOLERANCE_MS;
    const auth = authorizeSignal(secrets, req.headers, req.body, now(), tolerance);
    if ('refused' in auth) {
      deps.metrics.count('SignalAuthFailure');
      deps.log.warn('signal post rejected: bad or missing credentials', {
        error: auth.refused,
        has_authorization: req.headers.authorization !== undefined,
        has_signature: req.headers['x-reprise-signature-256'] !== undefined,
        has_timestamp: req.headers['x-reprise-timestamp'] !== undefined,
      });
      return answer(401, { error: auth.refused });
    }

    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return answer(400, { error: 'body is not JSON', field: 'body' });
    }
    const nowMs = now();
    const parsed = parseSignalPost(body, nowMs);
    if ('status' in parsed) {
      deps.log.warn('signal post refused', { field: parsed.field, error: parsed.error });
      return answer(parsed.status, { error: `${parsed.field}: ${parsed.error}`, field: parsed.field });
    }

    // A signature counts once: the same signed body posted again within the window is a replay.
    if (auth.via === 'hmac' && deps.store.firstUse) {
      const first = await deps.store.firstUse(auth.signature, auth.timestampMs + tolerance);
      if (!first) {
        deps.metrics.count('SignalReplayRefused');
        deps.log.warn('signal post refused: replayed signature', { timestamp: auth.timestampMs / 1000 });
        return answer(409, { error: 'this signature was already used: sign each post afresh', field: 'signature' });
      }
    }

    const post = parsed.post;
    const scope = auth.secret.scope;
    const kind = recordedKind(post.kind);
    const eventId = post.eventId ?? derivedEventId(post);
    // One ISO form, as the store keeps it, so the answer names the record's time.
    const eventTime = post.time
      ? new Date(post.time).toISOString()
      : await deps.store.firstSeen(eventId, nowMs, RETRY_HORIZON_MS);
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
    if (deps.jobs && deps.recovery) {
      await requestRecovery(await deps.jobs.runningOn(keys), { kind, eventId }, deps.recovery);
    }
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
  };
}
