import type { Text } from '../../core/text.ts';
import { resolved, type JsonSchema, type SchemaComponents } from '../openapi/json-schema.ts';

/**
 * Response fields as rows of a table, read from the JSON Schema the OpenAPI document holds, so
 * the docs pages and the document cannot disagree. Nested objects give dotted names
 * (`location.lat`), arrays of objects `[]` (`legend[].color`).
 */

export interface FieldRow {
  readonly name: string;
  readonly depth: number;
  readonly type: string;
  readonly required: boolean;
  readonly nullable: boolean;
  readonly description?: Text;
}

export interface ResponseShape {
  readonly kind: 'array' | 'object' | 'any';
  /** The named schema of the whole body or of its items, e.g. `Ride`. */
  readonly name?: string;
  readonly description?: Text;
  readonly fields: readonly FieldRow[];
}

/** Deep enough for every v1 shape; deeper nesting would be a shape to name instead. */
const MAX_DEPTH = 5;

export const textOf = (schema: JsonSchema): Text | undefined =>
  typeof schema.description === 'string' && typeof schema['x-description-pl'] === 'string'
    ? { en: schema.description, pl: schema['x-description-pl'] }
    : undefined;

/** `X` or `X | null`: the schema without the null, and whether it was there. */
function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  const options = schema.anyOf as JsonSchema[] | undefined;
  if (options?.length === 2 && options.some((o) => o.type === 'null')) {
    const { anyOf: _, ...siblings } = schema;
    return { schema: { ...options.find((o) => o.type !== 'null')!, ...siblings }, nullable: true };
  }
  // Simple types come as a list instead: `type: ['string', 'null']`.
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const types = schema.type.filter((type) => type !== 'null');
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { schema, nullable: false };
}

const refName = (schema: JsonSchema) => (typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined);

/** A short type: `string (date)`, `array of Ride`, `CodedTerm`, `"v1"`. */
export function typeLabel(schema: JsonSchema): string {
  const { schema: inner } = withoutNull(schema);
  const named = refName(inner);
  if (named) return named;
  if ('const' in inner) return JSON.stringify(inner.const);
  if (Array.isArray(inner.enum)) return inner.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (inner.type === 'array') return `array of ${typeLabel((inner.items as JsonSchema | undefined) ?? {})}`;
  if (typeof inner.type === 'string') return typeof inner.format === 'string' ? `${inner.type} (${inner.format})` : inner.type;
  return 'any';
}

export function responseShape(schema: JsonSchema, components: SchemaComponents): ResponseShape {
  const top = resolved(schema, components);
  if (top.type === 'array') {
    const items = (top.items as JsonSchema | undefined) ?? {};
    const item = resolved(items, components);
    return { kind: 'array', name: refName(items), description: textOf(item), fields: fieldRows(item, components) };
  }
  const fields = fieldRows(top, components);
  return { kind: fields.length ? 'object' : 'any', name: refName(schema), description: textOf(top), fields };
}

function fieldRows(schema: JsonSchema, components: SchemaComponents, prefix = '', depth = 0, named: readonly string[] = []): FieldRow[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).flatMap(([key, property]) => {
    const name = prefix ? `${prefix}.${key}` : key;
    const { schema: inner, nullable } = withoutNull(property);
    const row: FieldRow = { name, depth, type: typeLabel(property), required: required.has(key), nullable, description: textOf(resolved(inner, components)) };
    return [row, ...childRows(inner, name, components, depth, named)];
  });
}

/** The fields inside an object or an array of objects, unless the same named schema is already open above (a cycle). */
function childRows(schema: JsonSchema, name: string, components: SchemaComponents, depth: number, named: readonly string[]): FieldRow[] {
  if (depth + 1 >= MAX_DEPTH) return [];
  const isArray = schema.type === 'array';
  const target = isArray ? ((schema.items as JsonSchema | undefined) ?? {}) : schema;
  const id = refName(target);
  if (id && named.includes(id)) return [];
  const object = resolved(target, components);
  if (object.type !== 'object' || !object.properties) return [];
  return fieldRows(object, components, isArray ? `${name}[]` : name, depth + 1, id ? [...named, id] : named);
}
