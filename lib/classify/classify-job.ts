import type { Annotation, EvidenceSource, JobFacts, JobVerdict, RunnerSignal, SignalKind } from '../model.js';
import { CANCELLATION_ECHO, FAIL_FAST, matchLoss, matchVeto } from './patterns.js';

/** Annotations as read from GitHub, or the status that made them unreadable. */
export type AnnotationEvidence = readonly Annotation[] | { readonly unavailable: number };
/** `##[error]` lines from the job log's head and tail, or why there are none. */
export type LogEvidence = { readonly errors: readonly string[] } | 'missing' | 'unreadable';

export interface JobEvidence {
  readonly signals: readonly RunnerSignal[];
  readonly annotations: AnnotationEvidence;
  /** Undefined until fetched: the classifier asks for it when it needs it. */
  readonly log?: LogEvidence;
}

export type Classification = { readonly kind: 'verdict'; readonly verdict: JobVerdict } | { readonly kind: 'need_log' };

/** A rebalance recommendation is a risk, not an interruption: never enough alone. */
const EXACT_KINDS: ReadonlySet<SignalKind> = new Set(['spot-interruption', 'terminated', 'external']);

const EXIT_CODE = /process completed with exit code \d+/i;

interface TextFindings {
  loss?: string;
  veto?: { kind: 'person' | 'concurrency' | 'timeout'; text: string };
  /** Failure texts that are neither a loss, a veto nor the cancellation echo: a real failure. */
  real: string[];
  echoOnly: boolean;
}

function examine(texts: readonly string[], extra: readonly RegExp[]): TextFindings {
  const f: TextFindings = { real: [], echoOnly: texts.length > 0 };
  for (const text of texts) {
    const veto = matchVeto(text);
    if (veto) {
      f.veto ??= { kind: veto, text };
      f.echoOnly = false;
      continue;
    }
    if (CANCELLATION_ECHO.test(text)) continue;
    f.echoOnly = false;
    if (FAIL_FAST.test(text)) continue;
    const loss = EXIT_CODE.test(text) ? undefined : matchLoss(text, extra);
    if (loss) f.loss ??= loss;
    else f.real.push(text);
  }
  return f;
}

/** Title and message together, except the cancellation echo, which must stay recognisable whatever its title. */
const annotationText = (a: Annotation): string =>
  a.title && !CANCELLATION_ECHO.test(a.message) ? `${a.title}: ${a.message}` : a.message;

function verdict(
  job: JobFacts,
  v: JobVerdict['verdict'],
  source: EvidenceSource,
  evidence: string,
  veto?: JobVerdict['veto'],
): Classification {
  return {
    kind: 'verdict',
    verdict: { job, verdict: v, source, evidence: evidence.slice(0, 200), ...(veto && { veto }) },
  };
}

/**
 * Classifies one failed or cancelled job as infra, genuine, inconclusive or vetoed. Pure: when the annotations cannot
 * settle it and the log has not been read, it answers `need_log` and is called again.
 */
export function classifyJob(job: JobFacts, ev: JobEvidence, extra: readonly RegExp[]): Classification {
  const cancelled = job.conclusion === 'cancelled';
  const readable = Array.isArray(ev.annotations);
  const failures = readable
    ? (ev.annotations as readonly Annotation[]).filter((a) => a.level.toLowerCase() === 'failure').map(annotationText)
    : [];
  const fromAnn = examine(failures, extra);
  const exact = ev.signals.find((s) => EXACT_KINDS.has(s.kind));

  if (fromAnn.veto) return verdict(job, 'vetoed', 'annotations', fromAnn.veto.text, fromAnn.veto.kind);
  // A real failure beside the loss (a test failed, then the runner died in an always() step).
  const exitCode = fromAnn.real.find((t) => EXIT_CODE.test(t));
  if (exitCode) return verdict(job, 'genuine', 'annotations', exitCode);
  if (!cancelled && (fromAnn.loss || exact) && fromAnn.real.length > 0) {
    return verdict(job, 'genuine', 'annotations', fromAnn.real[0] ?? '');
  }
  if (exact) return verdict(job, 'infra', 'signal', `${exact.kind} for ${exact.runnerKey} at ${exact.eventTime}`);
  if (fromAnn.loss) return verdict(job, 'infra', 'annotations', `pattern ${fromAnn.loss}`);

  // Cancelled jobs reach their log only when the cancellation echo is all they carry.
  const wantsLog = cancelled ? readable && fromAnn.echoOnly : !readable || fromAnn.real.length === 0;
  if (!wantsLog) {
    if (cancelled)
      return verdict(job, 'inconclusive', readable ? 'annotations' : 'unreadable', 'cancelled, no evidence');
    return verdict(job, 'genuine', 'annotations', fromAnn.real[0] ?? 'failed without a runner-loss annotation');
  }
  if (ev.log === undefined) return { kind: 'need_log' };

  const source: EvidenceSource = readable ? 'annotations+logs' : 'logs';
  if (ev.log === 'missing' || ev.log === 'unreadable') {
    const src: EvidenceSource = readable ? source : 'unreadable';
    const why = `no annotation evidence; log ${ev.log}`;
    return verdict(job, cancelled ? 'inconclusive' : 'genuine', src, why);
  }
  const fromLog = examine(ev.log.errors, extra);
  if (fromLog.veto) return verdict(job, 'vetoed', source, fromLog.veto.text, fromLog.veto.kind);
  const realAnywhere = [...fromAnn.real, ...fromLog.real];
  const logExit = fromLog.real.find((t) => EXIT_CODE.test(t));
  if (logExit) return verdict(job, 'genuine', source, logExit);
  if (fromLog.loss && realAnywhere.length === 0) return verdict(job, 'infra', source, `log pattern ${fromLog.loss}`);
  if (realAnywhere.length > 0 && !cancelled) return verdict(job, 'genuine', source, realAnywhere[0] ?? '');
  if (fromLog.loss) return verdict(job, 'infra', source, `log pattern ${fromLog.loss}`);
  return verdict(job, cancelled ? 'inconclusive' : 'genuine', source, 'no runner-loss evidence in annotations or log');
}
