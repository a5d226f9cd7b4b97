/** A GraphQL executable document, parsed far enough to validate it and price it. */

export type Value =
  | { kind: 'variable'; name: string }
  | { kind: 'int'; value: number }
  | { kind: 'other' }
  | { kind: 'string'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'list'; values: Value[] }
  | { kind: 'object'; fields: Record<string, Value> };

export interface Field {
  kind: 'field';
  alias: string | null;
  name: string;
  args: Record<string, Value>;
  selections: Selection[] | null;
  line: number;
  column: number;
}

export type Selection =
  | Field
  | { kind: 'spread'; name: string; line: number; column: number }
  | { kind: 'inline'; on: string | null; selections: Selection[]; line: number; column: number };

export interface Operation {
  kind: 'operation';
  operation: string;
  name: string | null;
  variables: string[];
  selections: Selection[];
}

export interface Fragment {
  kind: 'fragment';
  name: string;
  on: string;
  selections: Selection[];
  line: number;
  column: number;
}

export type Definition = Operation | Fragment;

interface Token {
  text: string;
  kind: 'name' | 'punct' | 'number' | 'string' | 'eof';
  line: number;
  column: number;
}

export class GraphqlSyntaxError extends Error {}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re =
    /([\s,\uFEFF]+|#[^\n\r]*)|(\.\.\.|[!$&()[\]{}:=@|])|([_A-Za-z][_0-9A-Za-z]*)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|("(?:[^"\\\n]|\\.)*")/y;
  let line = 1;
  let lineStart = 0;
  let at = 0;
  while (at < source.length) {
    re.lastIndex = at;
    const m = re.exec(source);
    if (!m) throw new GraphqlSyntaxError(`Parse error on "${source[at]}" at [${line}, ${at - lineStart + 1}]`);
    const column = at - lineStart + 1;
    if (m[1] !== undefined) {
      for (let i = 0; i < m[1].length; i++) {
        if (m[1][i] === '\n') {
          line++;
          lineStart = at + i + 1;
        }
      }
    } else {
      const kind = m[2] ? 'punct' : m[3] ? 'name' : m[4] ? 'number' : 'string';
      tokens.push({ text: m[0], kind, line, column });
    }
    at = re.lastIndex;
  }
  tokens.push({ text: '', kind: 'eof', line, column: at - lineStart + 1 });
  return tokens;
}

/** Parses an executable document (operations and fragments); throws GraphqlSyntaxError. */
export function parseDocument(source: string): Definition[] {
  const tokens = tokenize(source);
  let i = 0;
  const peek = (): Token => tokens[i] as Token;
  const fail = (t: Token): never => {
    const what = t.kind === 'eof' ? 'end of file' : `"${t.text}"`;
    throw new GraphqlSyntaxError(`Parse error on ${what} at [${t.line}, ${t.column}]`);
  };
  const next = (): Token => tokens[i++] as Token;
  const is = (text: string): boolean => peek().kind !== 'string' && peek().text === text;
  const expect = (text: string): Token => (is(text) ? next() : fail(peek()));
  const name = (): string => (peek().kind === 'name' ? next().text : fail(peek()));

  const value = (): Value => {
    const t = peek();
    if (is('$')) {
      next();
      return { kind: 'variable', name: name() };
    }
    if (is('[')) {
      next();
      const values: Value[] = [];
      while (!is(']')) values.push(value());
      next();
      return { kind: 'list', values };
    }
    if (is('{')) {
      next();
      const fields: Record<string, Value> = {};
      while (!is('}')) {
        const key = name();
        expect(':');
        fields[key] = value();
      }
      next();
      return { kind: 'object', fields };
    }
    if (t.kind === 'number') {
      next();
      return Number.isInteger(Number(t.text)) ? { kind: 'int', value: Number(t.text) } : { kind: 'other' };
    }
    if (t.kind === 'string') {
      next();
      return { kind: 'string', value: JSON.parse(t.text) as string };
    }
    if (t.kind === 'name') {
      next();
      return t.text === 'true' || t.text === 'false'
        ? { kind: 'boolean', value: t.text === 'true' }
        : { kind: 'other' };
    }
    return fail(t);
  };
  const args = (): Record<string, Value> => {
    const out: Record<string, Value> = {};
    if (!is('(')) return out;
    next();
    while (!is(')')) {
      const key = name();
      expect(':');
      out[key] = value();
    }
    next();
    return out;
  };
  const directives = (): void => {
    while (is('@')) {
      next();
      name();
      args();
    }
  };
  const type = (): void => {
    if (is('[')) {
      next();
      type();
      expect(']');
    } else name();
    if (is('!')) next();
  };
  const selectionSet = (): Selection[] => {
    expect('{');
    const out: Selection[] = [];
    while (!is('}')) out.push(selection());
    next();
    if (out.length === 0) fail(tokens[i - 1] as Token);
    return out;
  };
  const selection = (): Selection => {
    const start = peek();
    if (is('...')) {
      next();
      if (is('on')) {
        next();
        const on = name();
        directives();
        return { kind: 'inline', on, selections: selectionSet(), line: start.line, column: start.column };
      }
      if (peek().kind === 'name') {
        const spread = name();
        directives();
        return { kind: 'spread', name: spread, line: start.line, column: start.column };
      }
      directives();
      return { kind: 'inline', on: null, selections: selectionSet(), line: start.line, column: start.column };
    }
    let fieldName = name();
    let alias: string | null = null;
    if (is(':')) {
      next();
      alias = fieldName;
      fieldName = name();
    }
    const fieldArgs = args();
    directives();
    const selections = is('{') ? selectionSet() : null;
    return {
      kind: 'field',
      alias,
      name: fieldName,
      args: fieldArgs,
      selections,
      line: start.line,
      column: start.column,
    };
  };

  const definitions: Definition[] = [];
  while (peek().kind !== 'eof') {
    const start = peek();
    if (is('{')) {
      definitions.push({
        kind: 'operation',
        operation: 'query',
        name: null,
        variables: [],
        selections: selectionSet(),
      });
    } else if (is('fragment')) {
      next();
      const fragmentName = name();
      expect('on');
      const on = name();
      directives();
      definitions.push({
        kind: 'fragment',
        name: fragmentName,
        on,
        selections: selectionSet(),
        line: start.line,
        column: start.column,
      });
    } else if (is('query') || is('mutation') || is('subscription')) {
      const operation = next().text;
      const opName = peek().kind === 'name' ? name() : null;
      const variables: string[] = [];
      if (is('(')) {
        next();
        while (!is(')')) {
          expect('$');
          variables.push(name());
          expect(':');
          type();
          if (is('=')) {
            next();
            value();
          }
          directives();
        }
        next();
      }
      directives();
      definitions.push({ kind: 'operation', operation, name: opName, variables, selections: selectionSet() });
    } else fail(start);
  }
  if (definitions.length === 0) fail(peek());
  return definitions;
}
