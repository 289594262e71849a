// JSON-Schema checks of tool-call arguments with ajv (draft-07, the dialect of OpenAI/Qwen tool
// signatures), so tool authors get the full schema language. Schemas are compiled once (cached
// per schema object); ajv's errors are turned into messages that name the field at fault
// (`arguments.city is required`). Used by registry.ts and the proxy's HTTP tools (src/server);
// tested by tests/unit/tools/tools-registry.test.ts and tests/unit/server/proxy-server.test.ts.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';

/** A JSON Schema; the common keywords are typed, any other draft-07 keyword is allowed. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'null';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  [keyword: string]: unknown;
}

/** Returns the list of problems with a value (empty when it fits). */
export type SchemaCheck = (value: unknown) => string[];

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Compiles `schema` (once per object); throws naming `owner` when the schema itself is invalid. */
export function compileSchema(schema: JsonSchema, owner = 'schema', path = 'arguments'): SchemaCheck {
  let fn = compiled.get(schema);
  if (!fn) {
    try {
      fn = ajv.compile(schema);
    } catch (e) {
      throw new Error(`${owner}: the parameters are not a valid JSON Schema (${(e as Error).message})`);
    }
    compiled.set(schema, fn);
  }
  const check = fn;
  return (value) => (check(value) ? [] : (check.errors ?? []).map((e) => describeError(e, path)));
}

/** Problems with `value` against `schema` (empty when it fits). */
export function validateJson(value: unknown, schema: JsonSchema, path = 'arguments'): string[] {
  return compileSchema(schema, 'schema', path)(value);
}

/** ajv's `/a/0/b` as `arguments.a[0].b`. */
function fieldOf(root: string, instancePath: string): string {
  return instancePath.split('/').slice(1).reduce((p, raw) => {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^\d+$/.test(key) ? `${p}[${key}]` : `${p}.${key}`;
  }, root);
}

function describeError(e: ErrorObject, root: string): string {
  const at = fieldOf(root, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at}.${String(p.missingProperty)} is required`;
    case 'additionalProperties':
      return `${at}.${String(p.additionalProperty)} is not a known parameter`;
    case 'type': {
      const t = String(p.type);
      return `${at} must be ${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}, got ${typeOf(e.data)}`;
    }
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${at} ${e.message ?? `fails "${e.keyword}"`}`;
  }
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}
