/**
 * The shell commands the documentation shows: every command of a fenced `sh` block, and inline
 * code that starts with `npx reprise`, `npm start` or `npm run`.
 */

export interface DocCommand {
  /** `README.md:55`: where a reader finds it. */
  readonly where: string;
  /** The command as a reader would type it: continuations joined, comments dropped. */
  readonly text: string;
  /**
   * Shell lines that come before it in the same block (variable assignments, a heredoc), which
   * it depends on; empty for inline commands.
   */
  readonly prelude: readonly string[];
}

const INLINE = /`((?:npx reprise|npm start|npm run)\b[^`]*)`/g;
const FENCE = /^\s*(```+|~~~+)\s*(\S*)/;
/** A line that only prepares the shell for the commands after it. */
const SHELL_ONLY = /^(\w+=|cat\s+>)/;

/** Drops a trailing `# comment` outside quotes. */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** Splits `a && b` at the top level (outside quotes and `$( )`) into its commands. */
function splitAnd(command: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let depth = 0;
  let start = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && command.startsWith('&&', i)) {
      parts.push(command.slice(start, i).trim());
      start = i + 2;
      i++;
    }
  }
  parts.push(command.slice(start).trim());
  return parts.filter(Boolean);
}

/** The commands of one `sh` block, each with the shell lines before it. */
function blockCommands(lines: readonly string[], file: string, firstLine: number): DocCommand[] {
  const out: DocCommand[] = [];
  const prelude: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const at = i;
    let text = stripComment(lines[i] ?? '');
    if (!text.trim()) continue;
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(text);
    if (heredoc) {
      const body: string[] = [];
      while (++i < lines.length && lines[i]?.trim() !== heredoc[1]) body.push(lines[i] ?? '');
      text = [text, ...body, heredoc[1]].join('\n');
    } else {
      while (text.endsWith('\\') && i + 1 < lines.length)
        text = `${text.slice(0, -1).trimEnd()} ${stripComment(lines[++i] ?? '').trim()}`;
    }
    const where = `${file}:${firstLine + at}`;
    if (SHELL_ONLY.test(text)) {
      prelude.push(text);
      continue;
    }
    for (const part of splitAnd(text)) out.push({ where, text: part, prelude: [...prelude] });
  }
  return out;
}

/** Every command a markdown file shows, in order. */
export function docCommands(file: string, markdown: string): DocCommand[] {
  const lines = markdown.split('\n');
  const out: DocCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i] ?? '');
    if (fence) {
      const close = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[1] ?? '```'));
      const end = close === -1 ? lines.length : close;
      if (fence[2] === 'sh' || fence[2] === 'bash' || fence[2] === 'shell') {
        // A block inside a list item is indented as deep as its fence.
        const indent = (lines[i] ?? '').length - (lines[i] ?? '').trimStart().length;
        const body = lines.slice(i + 1, end).map((l) => l.replace(new RegExp(`^ {0,${indent}}`), ''));
        out.push(...blockCommands(body, file, i + 2));
      }
      i = end;
      continue;
    }
    for (const m of (lines[i] ?? '').matchAll(INLINE)) {
      out.push({ where: `${file}:${i + 1}`, text: (m[1] ?? '').trim(), prelude: [] });
    }
  }
  return out;
}
