import type { Annotation } from '../model.js';
import { readActionSetup } from './action-setup.js';
import type { TextPattern } from './linear-pattern.js';
import { CANCELLATION_ECHO, EXIT_CODE, FAIL_FAST, matches, matchLoss, matchPlatform, matchVeto } from './patterns.js';
import { scanned, type ScanMeter } from './scan-budget.js';

/** What a job's failure texts hold, each text read once by every pattern family in turn. */
export interface TextFindings {
  loss?: string;
  /** A GitHub platform failure, by pattern name: its own evidence family. */
  platform?: string;
  veto?: { kind: 'person' | 'concurrency' | 'timeout'; text: string };
  /** Failure texts that are neither a loss, a veto nor the cancellation echo: a real failure. */
  real: string[];
  echoOnly: boolean;
}

/** Texts are read up to the size limit: each pattern sees the head of a text, never all of a huge one. */
export function examine(texts: readonly string[], extra: readonly TextPattern[], meter: ScanMeter): TextFindings {
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
export function examineJob(
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
export const annotationText = (a: Annotation, meter: ScanMeter): string =>
  a.title && !matches(CANCELLATION_ECHO, scanned(a.message, meter.limits), meter)
    ? `${a.title}: ${a.message}`
    : a.message;
