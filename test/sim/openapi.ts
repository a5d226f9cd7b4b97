import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';

/** GitHub's dereferenced OpenAPI description, as shipped by @octokit/openapi. */
export const SPEC_PATH = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.deref.json');

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
}

/** OpenAPI 3.0 `nullable` becomes a JSON Schema type union (or an anyOf with null when there is no type). */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node as Schema)) {
    if (k === 'example' || k === 'examples') continue;
    // Property names are data, not keywords: convert only their schemas.
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Schema).map(([p, s]) => [p, toJsonSchema(s)]));
    } else out[k] = toJsonSchema(v);
  }
  if (out.nullable !== true) {
    delete out.nullable;
    return out;
  }
  delete out.nullable;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [{ type: 'null' }, out] };
}

/** Validates bodies against the response schema GitHub documents for an operation and status. */
export class OpenApiResponses {
  private readonly spec: Spec;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(path = SPEC_PATH) {
    if (!existsSync(path)) throw new Error(`OpenAPI description not found at ${path}`);
    this.spec = JSON.parse(readFileSync(path, 'utf8')) as Spec;
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
  }

  /** Whether GitHub documents a JSON body for this status. */
  documents(method: string, template: string, status: number): boolean {
    return this.schemaFor(method, template, status) !== null;
  }

  /** The validator for a documented response; throws when the operation or status is not documented. */
  validator(method: string, template: string, status: number): ValidateFunction {
    const key = `${method.toUpperCase()} ${template} ${status}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const schema = this.schemaFor(method, template, status);
    if (!schema) throw new Error(`no documented JSON response for ${key}`);
    const fn = this.ajv.compile(toJsonSchema(schema) as Schema);
    this.cache.set(key, fn);
    return fn;
  }

  /** Validation errors as short strings; empty when the body conforms. */
  check(method: string, template: string, status: number, body: unknown): string[] {
    const fn = this.validator(method, template, status);
    if (fn(body)) return [];
    return (fn.errors ?? [])
      .slice(0, 20)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  }

  private schemaFor(method: string, template: string, status: number): Schema | null {
    const op = this.spec.paths[template]?.[method.toLowerCase()];
    if (!op) throw new Error(`operation ${method} ${template} is not in GitHub's OpenAPI description`);
    const content = op.responses[String(status)]?.content;
    return content?.['application/json']?.schema ?? null;
  }
}

/** ajv-formats, plus OpenAPI's numeric formats and GitHub's own, which carry no checkable shape. */
function addFormats(ajv: Ajv): void {
  // A CommonJS module seen from ESM: the plugin is its `default` export.
  ajvFormats.default(ajv);
  for (const f of ['int32', 'int64', 'double', 'float', 'timestamp', 'repo.nwo', 'binary']) ajv.addFormat(f, true);
}
