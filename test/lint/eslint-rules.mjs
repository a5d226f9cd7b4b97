// Rules of this repository that no published plugin holds on ESLint 10 under Node 20.

/** An exported declaration of lib/ says what it is for in a TSDoc comment right above it. */
const exportsHaveTsdoc = {
  meta: {
    type: 'suggestion',
    docs: { description: 'every exported declaration has a TSDoc comment (/** … */) right above it' },
    schema: [],
    messages: { missing: "exported '{{name}}' has no TSDoc comment (/** … */) above it" },
  },
  create(context) {
    const source = context.sourceCode;
    const hasDoc = (node) => {
      const before = source.getCommentsBefore(node);
      const last = before[before.length - 1];
      return last !== undefined && last.type === 'Block' && last.value.startsWith('*');
    };
    const nameOf = (declaration) => {
      if (declaration.id?.name) return declaration.id.name;
      if (declaration.declarations) return declaration.declarations.map((d) => d.id.name ?? '…').join(', ');
      return 'default';
    };
    const check = (node) => {
      if (!node.declaration || hasDoc(node)) return;
      context.report({ node, messageId: 'missing', data: { name: nameOf(node.declaration) } });
    };
    return { ExportNamedDeclaration: check, ExportDefaultDeclaration: check };
  },
};

export const repriseRules = { rules: { 'exports-have-tsdoc': exportsHaveTsdoc } };
