/**
 * Caps on text reprise keeps or prints that came from a repository, a workflow or GitHub. A
 * decision item in DynamoDB must stay far below its 400 KB limit and a log line readable,
 * whatever a file or an annotation holds.
 */
export const TEXT_CAPS = {
  /** A decision's reason, as logged, stored and reported. */
  reason: 4_000,
  /** A configuration or GitHub error quoted in a reason or a log line. */
  error: 1_000,
  /** A job, workflow, runner or repository name. */
  name: 200,
} as const;

/**
 * `text` cut to at most `max` characters, saying how much was cut. Cuts never split a
 * surrogate pair, so the result is still well-formed UTF-16.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = (cut: number): string => ` … (${cut} more characters)`;
  // The note for the whole length is never shorter than the note for what is actually cut.
  let end = Math.max(0, max - note(text.length).length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${note(text.length - end)}`;
}
