import { describe, expect, it } from 'vitest';
import { classifyJob } from '../../lib/classify/classify-job.js';
import { BOT_CANCEL, isOwnCancel } from '../../lib/classify/own-cancel.js';
import { ann, cancelledJob, evidence } from '../support/fixtures.js';

const BOT_NOTE = 'The run was canceled by @reprise[bot].';
const PERSON_NOTE = 'The run was canceled by @octocat.';

describe("reprise's own cancel note", () => {
  it('is the bot’s note on an attempt the ledger says reprise ended, and only then', () => {
    expect(isOwnCancel(BOT_NOTE, true)).toBe(true);
    expect(isOwnCancel(BOT_NOTE, false)).toBe(false);
    // A person's login never ends in [bot]: a person's cancel is never reprise's own.
    expect(isOwnCancel(PERSON_NOTE, true)).toBe(false);
    expect(BOT_CANCEL.test(`${BOT_NOTE} and more`)).toBe(false);
  });

  it('so the classifier skips it on an attempt reprise ended, and reads it as a veto otherwise', () => {
    const job = cancelledJob();
    const own = classifyJob(job, { ...evidence([ann(BOT_NOTE)]), endedByReprise: true }, []);
    expect(own).toMatchObject({ kind: 'verdict', verdict: { verdict: 'inconclusive', family: 'none' } });
    const other = classifyJob(job, evidence([ann(BOT_NOTE)]), []);
    expect(other).toMatchObject({ kind: 'verdict', verdict: { verdict: 'vetoed', veto: 'person', family: 'veto' } });
  });
});
