import type { Annotation, EvidenceSource, JobFacts, JobVerdict, RunnerSignal } from '../model.js';
import { readActionSetup } from './action-setup.js';
import { exactSignals } from './exact-signals.js';
import { readInfraCategory } from './infra-category.js';
import { isOwnCancel } from './own-cancel.js';
import type { TextPattern } from './linear-pattern.js';
import { CANCELLATION_ECHO, EXIT_CODE, FAIL_FAST, matches, matchLoss, matchPlatform, matchVeto } from './patterns.js';
import { BudgetSpent, ScanBudget, scanned, type ScanMeter } from './scan-budget.js';

/** Annotations as read from GitHub, or the status that made them unreadable. */
/**
 * A job's annotations; `unavailable` when GitHub would not show them (its status), `tooMany`
 * when there were more than are read (how many were), which cuts the job short.
 */
export type AnnotationEvidence =
  readonly Annotation[] | { readonly unavailable: number } | { readonly tooMany: number };
/** `##[error]` lines from the job log's head and tail, or why there are none. */
export type LogEvidence = { readonly errors: readonly string[] } | 'missing' | 'unreadable';

export interface JobEvidence {
  readonly signals: readonly RunnerSignal[];
  readonly annotations: AnnotationEvidence;
  /** Undefined until fetched: the classifier asks for it when it needs it. */
  readonly log?: LogEvidence;
  /** reprise ended this attempt early (ledger): the bot's cancel note on the job is its own, not a veto. */
  readonly endedByReprise?: boolean;
}

export type Classification = { readonly kind: 'verdict'; readonly verdict: JobVerdict } | { readonly kind: 'need_log' };

interface TextFindings {
  loss?: string;
  /** A GitHub platform failure, by pattern name: its own evidence family. */
  platform?: string;
  veto?: { kind: 'person' | 'concurrency' | 'timeout'; text: string };
  /** Failure texts that are neither a loss, a veto nor the cancellation echo: a real failure. */
  real: string[];
  echoOnly: boolean;
}

/** Texts are read up to the size limit: each pattern sees the head of a text, never all of a huge one. */
function examine(texts: readonly string[], extra: readonly TextPattern[], meter: ScanMeter): TextFindings {
  const f: TextFindings = { real: [], echoOnly: texts.length > 0 };
  for (const whole of texts) {
    const text = scanned(whole, meter.limits);
    const veto = matchVeto(text, meter);
    if (veto) {
      f.veto ??= { kind: veto, text };
      f.echoOnly = false;
      continue;
    }
    if (matches(CANCELLATION_ECHO, text, meter)) continue;
    f.echoOnly = false;
    if (matches(FAIL_FAST, text, meter)) continue;
    if (matches(EXIT_CODE, text, meter)) {
      f.real.push(text);
      continue;
    }
    const loss = matchLoss(text, extra, meter);
    const platform = loss ? undefined : matchPlatform(text, meter);
    if (loss) f.loss ??= loss;
    else if (platform) f.platform ??= platform;
    else f.real.push(text);
  }
  return f;
}

/** A job's texts with the action setup family read over all of them first (its evidence spans several texts). */
function examineJob(
  texts: readonly string[],
  warnings: readonly string[],
  extra: readonly TextPattern[],
  meter: ScanMeter,
): TextFindings {
  const setup = readActionSetup(texts, warnings, meter);
  const f = examine(
    texts.filter((_, i) => !setup.consumed.has(i)),
    extra,
    meter,
  );
  if (setup.platform) f.platform ??= setup.platform;
  return f;
}

/** Title and message together, except the cancellation echo, which must stay recognisable whatever its title. */
const annotationText = (a: Annotation, meter: ScanMeter): string =>
  a.title && !matches(CANCELLATION_ECHO, scanned(a.message, meter.limits), meter)
    ? `${a.title}: ${a.message}`
    : a.message;

function verdict(
  job: JobFacts,
  v: JobVerdict['verdict'],
  source: EvidenceSource,
  evidence: string,
  veto?: JobVerdict['veto'],
  cutShort?: true,
): Classification {
  return {
    kind: 'verdict',
    verdict: {
      job,
      verdict: v,
      source,
      evidence: evidence.slice(0, 200),
      ...(veto && { veto }),
      ...(cutShort && { cutShort }),
    },
  };
}

/**
 * Classifies one failed or cancelled job as infra, genuine, inconclusive or vetoed. Pure: when the annotations cannot
 * settle it and the log has not been read, it answers `need_log` and is called again.
 *
 * The work is bounded by `budget`, shared by every job of one decision: a job whose evidence
 * cannot be read within it is `inconclusive` and marked `cutShort`, which leaves the run alone.
 */
export function classifyJob(
  job: JobFacts,
  ev: JobEvidence,
  extra: readonly TextPattern[],
  budget: ScanBudget = new ScanBudget(),
): Classification {
  const meter = budget.window();
  try {
    return classifyWithin(job, ev, extra, meter);
  } catch (err) {
    if (!(err instanceof BudgetSpent)) throw err;
    const readable = Array.isArray(ev.annotations) || 'tooMany' in ev.annotations;
    const source: EvidenceSource =
      ev.log === undefined ? (readable ? 'annotations' : 'unreadable') : readable ? 'annotations+logs' : 'logs';
    return verdict(job, 'inconclusive', source, `evidence not read to the end: ${err.message}`, undefined, true);
  }
}

function classifyWithin(
  job: JobFacts,
  ev: JobEvidence,
  extra: readonly TextPattern[],
  meter: ScanMeter,
): Classification {
  const cancelled = job.conclusion === 'cancelled';
  if ('tooMany' in ev.annotations) {
    // What was left unread could be a real failure beside the loss.
    throw new BudgetSpent(`more than ${ev.annotations.tooMany} annotations; the rest were not read`);
  }
  const readable = Array.isArray(ev.annotations);
  const failing = readable
    ? (ev.annotations as readonly Annotation[]).filter((a) => a.level.toLowerCase() === 'failure')
    : [];
  meter.count(failing.length, 'failure annotations');
  const failures = failing
    .map((a) => annotationText(a, meter))
    .filter((t) => !isOwnCancel(t, ev.endedByReprise === true));
  const warnings = readable
    ? (ev.annotations as readonly Annotation[]).filter((a) => a.level.toLowerCase() === 'warning').map((a) => a.message)
    : [];
  // GitHub's own name for the failure, where it shows one, is read first and names the family over the text.
  const category = readInfraCategory([job, ...(readable ? (ev.annotations as readonly Annotation[]) : [])]);
  const fromAnn = examineJob(failures, warnings, extra, meter);
  if (category) fromAnn.platform = category.platform;
  const exact = exactSignals(ev.signals)[0];

  if (fromAnn.veto) return verdict(job, 'vetoed', 'annotations', fromAnn.veto.text, fromAnn.veto.kind);
  // A real failure beside the loss (a test failed, then the runner died in an always() step).
  const exitCode = fromAnn.real.find((t) => matches(EXIT_CODE, t, meter));
  if (exitCode) return verdict(job, 'genuine', 'annotations', exitCode);
  if (!cancelled && (fromAnn.loss || fromAnn.platform || exact) && fromAnn.real.length > 0) {
    return verdict(job, 'genuine', 'annotations', fromAnn.real[0] ?? '');
  }
  if (exact) {
    const c = verdict(job, 'infra', 'signal', `${exact.kind} for ${exact.runnerKey} at ${exact.eventTime}`);
    return c.kind === 'verdict' ? { ...c, verdict: { ...c.verdict, lostAt: exact.eventTime } } : c;
  }
  if (fromAnn.loss) return verdict(job, 'infra', 'annotations', `pattern ${fromAnn.loss}`);
  if (fromAnn.platform) return verdict(job, 'infra', 'platform', `platform ${fromAnn.platform}`);

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
  meter.count(ev.log.errors.length, 'error lines in the log window');
  const fromLog = examineJob(ev.log.errors, [], extra, meter);
  if (fromLog.veto) return verdict(job, 'vetoed', source, fromLog.veto.text, fromLog.veto.kind);
  const realAnywhere = [...fromAnn.real, ...fromLog.real];
  const logExit = fromLog.real.find((t) => matches(EXIT_CODE, t, meter));
  if (logExit) return verdict(job, 'genuine', source, logExit);
  const logLoss = (): Classification =>
    fromLog.loss
      ? verdict(job, 'infra', source, `log pattern ${fromLog.loss}`)
      : verdict(job, 'infra', 'platform', `log platform ${fromLog.platform}`);
  const lossInLog = fromLog.loss !== undefined || fromLog.platform !== undefined;
  if (lossInLog && realAnywhere.length === 0) return logLoss();
  if (realAnywhere.length > 0 && !cancelled) return verdict(job, 'genuine', source, realAnywhere[0] ?? '');
  if (lossInLog) return logLoss();
  return verdict(job, cancelled ? 'inconclusive' : 'genuine', source, 'no runner-loss evidence in annotations or log');
}
