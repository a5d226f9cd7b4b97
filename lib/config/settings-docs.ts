import { contextDefaultText, defaultText, type Setting, SETTING_NAMES, settingOf } from './settings-schema.js';

/**
 * The configuration tables of the docs, rendered from the settings schema. The docs hold them
 * between `<!-- settings:NAME -->` and `<!-- /settings:NAME -->`; a test checks they match.
 */

export type Row = readonly string[];
/** One Markdown table of the docs: its header and rows, as text. */
export interface Table {
  readonly header: Row;
  readonly rows: readonly Row[];
}

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|');
const all = (): Setting[] => SETTING_NAMES.map(settingOf);
/** A plain value in code, a description ("derived from …") as text. */
const shownDefault = (s: Setting): string =>
  s.defaultText !== undefined || s.default === undefined ? defaultText(s) : code(defaultText(s));

const FUNCTION_LABELS = {
  worker: 'worker',
  reconciler: 'reconciler',
  intake: 'intake',
  signalIntake: 'signal intake',
  ec2Signal: 'EC2 signal',
} as const;

function readers(s: Setting): string {
  const fns = s.readBy.map((f) => FUNCTION_LABELS[f]);
  return [...(s.local ? ['local'] : []), ...fns].join(', ');
}

/** README: every environment variable of the local runtime and the deployed functions. */
export function environmentTable(): Table {
  const rows = all()
    .filter((s) => s.env !== undefined && (s.local || s.readBy.length > 0))
    .map((s) => [code(s.env as string), s.doc, shownDefault(s), readers(s)]);
  return { header: ['variable', 'meaning', 'default', 'read by'], rows };
}

/** docs/deploy.md: every CDK context key, with the prop and variable behind it. */
export function contextTable(): Table {
  const rows = all()
    .filter((s) => s.context !== undefined)
    .map((s) => [
      code(s.context as string),
      contextDefaultText(s),
      s.doc + (s.contextUnit ? ` (in ${s.contextUnit})` : ''),
      s.prop ? code(s.prop) : '—',
      s.env && s.readBy.length > 0 ? code(s.env) : '—',
    ]);
  return { header: ['key', 'default', 'meaning', 'prop', 'variable'], rows };
}

/** docs/configuration.md: the keys a repository may set, and where a deployment sets their default. */
export function repositoryTable(): Table {
  const rows = all()
    .filter((s) => s.repoKey !== undefined)
    .map((s) => [
      code(s.repoKey as string),
      s.values ?? '',
      shownDefault(s),
      [s.env && code(s.env), s.prop && code(s.prop), s.context && code(`-c ${s.context}`)].filter(Boolean).join(', ') ||
        '—',
      s.doc,
    ]);
  return { header: ['key', 'values', 'default', 'deployment default', 'meaning'], rows };
}

/** The generated tables, by the name their markers in the docs carry. */
export const TABLES = { environment: environmentTable, context: contextTable, repository: repositoryTable } as const;
/** A generated table's name (`<!-- settings:NAME -->`). */
export type TableName = keyof typeof TABLES;

/** Markdown of a table (prettier aligns it afterwards). */
export function renderTable(t: Table): string {
  const line = (r: Row) => `| ${r.map(cell).join(' | ')} |`;
  return [line(t.header), line(t.header.map(() => '---')), ...t.rows.map(line)].join('\n');
}

const markers = (name: string) => [`<!-- settings:${name} -->`, `<!-- /settings:${name} -->`] as const;

/** The rows of a table as a document holds them between its markers; undefined when the markers are missing. */
export function tableIn(doc: string, name: TableName): Row[] | undefined {
  const [open, close] = markers(name);
  const a = doc.indexOf(open);
  const b = doc.indexOf(close);
  if (a < 0 || b < a) return undefined;
  return doc
    .slice(a + open.length, b)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, '|')),
    );
}

/** The document with the table between its markers replaced by a fresh rendering. */
export function withTable(doc: string, name: TableName): string {
  const [open, close] = markers(name);
  const a = doc.indexOf(open);
  const b = doc.indexOf(close);
  if (a < 0 || b < a) throw new Error(`missing ${open} … ${close}`);
  return `${doc.slice(0, a + open.length)}\n\n${renderTable(TABLES[name]())}\n\n${doc.slice(b)}`;
}

/** The table as rows, header first, the way {@link tableIn} reads it back. */
export const expectedRows = (name: TableName): Row[] => {
  const t = TABLES[name]();
  return [t.header, ...t.rows].map((r) => r.map((c) => c.trim()));
};
