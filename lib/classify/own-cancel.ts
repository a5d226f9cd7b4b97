import { linearPattern } from './linear-pattern.js';
import type { TextPattern } from '../model.js';

/**
 * GitHub's note on every job a cancel ended, when an App's token cancelled it: "The run was
 * canceled by @<app>[bot]." A person's login never ends in `[bot]`.
 */
export const BOT_CANCEL: TextPattern = linearPattern('^\\s*the run was canceled by @\\S+\\[bot\\]\\.?\\s*$');

/**
 * Whether a failure text is reprise's own early end of the run: the bot's cancel note, on an
 * attempt the ledger says reprise ended. Without that record the same note stays a veto.
 */
export const isOwnCancel = (text: string, endedByReprise: boolean): boolean => endedByReprise && BOT_CANCEL.test(text);
