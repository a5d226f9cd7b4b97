/**
 * A strict evaluator of identity-policy statements for DynamoDB requests: what IAM decides for an
 * action on a resource with the request's `dynamodb:LeadingKeys`. Strict means a condition
 * operator or key it does not know throws instead of being skipped, so a policy it cannot judge
 * never passes. Semantics as IAM documents them: an explicit Deny wins; `ForAllValues` over an
 * absent key is true (hence the `Null` condition the grants add); `StringLike` takes `*` and `?`.
 */

export interface PolicyStatement {
  readonly Effect: 'Allow' | 'Deny';
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

export interface TableRequest {
  /** `dynamodb:GetItem`, … */
  readonly action: string;
  readonly resource: string;
  /** The partition keys the request names; absent for a Scan. */
  readonly leadingKeys?: readonly string[];
}

const list = <T>(v: T | readonly T[]): readonly T[] => (Array.isArray(v) ? (v as readonly T[]) : [v as T]);

const like = (pattern: string, value: string): boolean =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
    's',
  ).test(value);

function condition(op: string, key: string, expected: unknown, req: TableRequest): boolean {
  if (key !== 'dynamodb:LeadingKeys') throw new Error(`the evaluator does not know the condition key ${key}`);
  const values = req.leadingKeys;
  const patterns = list(expected as string | string[]).map(String);
  switch (op) {
    case 'Null':
      // "true": the key must be absent; "false": present.
      return patterns[0] === 'true' ? values === undefined : values !== undefined;
    case 'ForAllValues:StringLike':
      return (values ?? []).every((v) => patterns.some((p) => like(p, v)));
    case 'ForAnyValue:StringLike':
      return (values ?? []).some((v) => patterns.some((p) => like(p, v)));
    case 'ForAllValues:StringEquals':
      return (values ?? []).every((v) => patterns.includes(v));
    default:
      throw new Error(`the evaluator does not know the condition operator ${op}`);
  }
}

function matches(s: PolicyStatement, req: TableRequest, resolve: (r: unknown) => string): boolean {
  if (!list(s.Action).some((a) => like(a, req.action))) return false;
  if (!list(s.Resource).some((r) => like(resolve(r), req.resource))) return false;
  for (const [op, keys] of Object.entries(s.Condition ?? {})) {
    for (const [key, expected] of Object.entries(keys)) if (!condition(op, key, expected, req)) return false;
  }
  return true;
}

/** Whether the statements allow the request: some Allow matches and no Deny does. */
export function allows(
  statements: readonly PolicyStatement[],
  req: TableRequest,
  resolve: (resource: unknown) => string,
): boolean {
  const hits = statements.filter((s) => matches(s, req, resolve));
  return hits.some((s) => s.Effect === 'Allow') && !hits.some((s) => s.Effect === 'Deny');
}

/** The identity-policy statements attached to a role, by the role's logical id. */
export function statementsOfRole(
  resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>,
  roleId: string,
): PolicyStatement[] {
  const out: PolicyStatement[] = [];
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    const roles = (r.Properties?.Roles ?? []) as { Ref?: string }[];
    if (!roles.some((x) => x.Ref === roleId)) continue;
    out.push(...(r.Properties!.PolicyDocument as { Statement: PolicyStatement[] }).Statement);
  }
  return out;
}

/** The role of a Lambda function, by the function's logical id. */
export function roleOfFunction(
  resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>,
  functionId: string,
): string {
  const role = resources[functionId]?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
  const id = role?.['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`${functionId} names no role of the template`);
  return id;
}
