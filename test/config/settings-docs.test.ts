import { describe, expect, it } from 'vitest';
import {
  contextTable,
  environmentTable,
  expectedRows,
  renderTable,
  repositoryTable,
  TABLES,
  tableIn,
  type TableName,
  withTable,
} from '../../lib/config/settings-docs.js';

const doc = (name: string, body = '| stale |\n|---|\n| row |') =>
  `# Title\n\nbefore\n\n<!-- settings:${name} -->\n\n${body}\n\n<!-- /settings:${name} -->\n\nafter\n`;

describe('renderTable and tableIn', () => {
  it('a rendered table reads back cell for cell, a pipe inside a cell included', () => {
    const t = {
      header: ['a', 'b'],
      rows: [
        ['x | y', '`z`'],
        ['1', ''],
      ],
    };
    const md = renderTable(t);
    expect(md.split('\n')).toEqual(['| a | b |', '| --- | --- |', '| x \\| y | `z` |', '| 1 |  |']);
    expect(tableIn(`<!-- settings:environment -->\n${md}\n<!-- /settings:environment -->`, 'environment')).toEqual([
      ['a', 'b'],
      ['x | y', '`z`'],
      ['1', ''],
    ]);
  });

  it('no markers, or a closing marker before the opening one: no table', () => {
    expect(tableIn('| a |', 'environment')).toBeUndefined();
    expect(tableIn('<!-- /settings:context --> <!-- settings:context -->', 'context')).toBeUndefined();
  });
});

describe('withTable', () => {
  it.each(Object.keys(TABLES) as TableName[])(
    '%s: replaces what stands between its markers, and the document then holds the expected rows',
    (name) => {
      const out = withTable(doc(name), name);
      expect(out.startsWith('# Title\n\nbefore\n\n')).toBe(true);
      expect(out.endsWith('\n\nafter\n')).toBe(true);
      expect(out).not.toContain('| stale |');
      expect(tableIn(out, name)).toEqual(expectedRows(name));
    },
  );

  it('a document without the markers is refused, naming them', () => {
    expect(() => withTable('# nothing here', 'repository')).toThrow(
      'missing <!-- settings:repository --> … <!-- /settings:repository -->',
    );
  });
});

describe('the three tables', () => {
  it('environment: one row per variable, with who reads it', () => {
    const t = environmentTable();
    expect(t.header).toEqual(['variable', 'meaning', 'default', 'read by']);
    const row = t.rows.find((r) => r[0] === '`GITHUB_API_URL`');
    expect(row?.[2]).toBe('`https://api.github.com`');
    expect(row?.[3]).toBe('local, worker, reconciler');
    expect(new Set(t.rows.map((r) => r[0])).size).toBe(t.rows.length);
  });

  it('context: each key with its prop and variable', () => {
    const row = contextTable().rows.find((r) => r[0] === '`githubUrl`');
    expect(row?.[3]).toBe('`githubApiUrl`');
    expect(row?.[4]).toBe('`GITHUB_API_URL`');
  });

  it('repository: each file key with where a deployment sets its default', () => {
    const row = repositoryTable().rows.find((r) => r[0] === '`max_attempts`');
    expect(row?.[3]).toContain('`MAX_ATTEMPTS`');
  });
});
