import type { Rule } from 'eslint';

/** The repository's own lint rules, as a plugin. */
export declare const repriseRules: { readonly rules: Readonly<Record<'exports-have-tsdoc', Rule.RuleModule>> };
