/**
 * Text from GitHub or a workflow's author (job, runner, workflow and repository names,
 * annotation messages, a file's error) made inert for the medium it is shown in, so it can
 * only ever read as itself: never as markup, a link or a terminal command.
 */

/** CSI and OSC sequences (colours, cursor moves, titles, hyperlinks), 7-bit and 8-bit. */
/* eslint-disable no-control-regex -- matching control characters is the point */
const TERMINAL_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/g;

/**
 * C0 and C1 controls (ESC and BEL among them) but tab and newline, DEL, and the bidirectional
 * overrides and isolates that reorder what a reader sees.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/** `text` with terminal sequences and control characters removed; tabs and newlines kept. */
export function stripControls(text: string): string {
  return text.replace(TERMINAL_SEQUENCE, '').replace(CONTROL, '');
}

/**
 * The ASCII punctuation that can start or end Markdown (or HTML, an entity, an autolink, a
 * math span) in one line of inline text, each escaped with a backslash as CommonMark allows;
 * `-` only where it could start a list. Quotes, commas, slashes and inner hyphens mean nothing
 * there, so `job "shard-1"` stays as it is written.
 */
const MARKDOWN_PUNCTUATION = /[!#$&()*+.:<>@[\\\]^_`{|}~]|^-/g;

/**
 * `text` as literal inline Markdown: controls removed, line breaks made spaces, and the
 * punctuation that could mean something backslash-escaped, so no heading, list, link,
 * autolink, table cell, emphasis, code span, math or HTML tag can start in it.
 */
export function inlineMarkdown(text: string): string {
  return stripControls(text)
    .replace(/\s+/g, ' ')
    .trimStart()
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`);
}
