import { describe, expect, it } from 'vitest';
import { compileExtraPatterns } from '../../lib/classify/patterns.js';
import { ScanBudget } from '../../lib/classify/scan-budget.js';
import { annotationText, examine, examineJob } from '../../lib/classify/text-findings.js';
import { ann } from '../support/fixtures.js';
import { TEXT } from '../support/evidence.js';

const meter = () => new ScanBudget().window();
const none = compileExtraPatterns('');

describe("what a job's failure texts hold", () => {
  it('sorts each text into a loss, a platform failure, a veto or a real failure; the first of each kind is kept', () => {
    const f = examine(
      [TEXT.shutdown, TEXT.selfHostedNamed(), 'Error: 3 tests failed', TEXT.exitCode(2), TEXT.person],
      none,
      meter(),
    );
    expect(f.loss).toBe('shutdown-signal');
    expect(f.platform).toBeUndefined();
    expect(f.veto).toEqual({ kind: 'person', text: TEXT.person });
    expect(f.real).toEqual(['Error: 3 tests failed', TEXT.exitCode(2)]);
    expect(f.echoOnly).toBe(false);
  });

  it('the cancellation echo alone is echoOnly; fail-fast is neither blame nor evidence', () => {
    expect(examine([TEXT.echo], none, meter())).toMatchObject({ echoOnly: true, real: [] });
    expect(examine([TEXT.failFast], none, meter())).toMatchObject({ echoOnly: false, real: [] });
    expect(examine([], none, meter()).echoOnly).toBe(false);
  });

  it('a configured pattern counts as a loss by its name; a platform text only when no loss pattern matched it', () => {
    const f = examine(['the runner went away'], compileExtraPatterns('runner went away'), meter());
    expect(f.loss).toBe('extra:runner went away');
    const p = examine(
      ['The job was not acquired by Runner of type hosted even after multiple attempts'],
      none,
      meter(),
    );
    expect(p).toMatchObject({ platform: 'not-acquired', real: [] });
  });

  it('the action setup family is read over all texts first, and the texts it accounts for are not real failures', () => {
    const f = examineJob(['Service Unavailable', 'Failed to resolve action download info.'], [], none, meter());
    expect(f.platform).toBe('action-resolve');
    expect(f.real).toEqual([]);
  });

  it('an annotation reads as title and message, except the echo, recognised whatever its title', () => {
    expect(annotationText(ann('3 tests failed', 'failure', 'Test'), meter())).toBe('Test: 3 tests failed');
    expect(annotationText(ann(TEXT.echo, 'failure', 'Build'), meter())).toBe(TEXT.echo);
  });
});
