import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

/** Where named schemas end up: the OpenAPI document's `components.schemas`, shared by every operation. */
export type SchemaComponents = Record<string, JsonSchema>;

export const componentRef = (id: string) => `#/components/schemas/${id}`;

/**
 * The JSON Schema (2020-12, which OpenAPI 3.1 uses) of a zod schema. Schemas declared with
 * `named` are moved into `components` and referred to, so each resource is described once.
 *
 * `io: 'input'` on purpose: parameters are what a client sends, before parsing, and response
 * objects stay open (no `additionalProperties: false`) because odsnap keeps whatever an upstream
 * sends beyond the spec and serves it too.
 */
export function jsonSchemaOf(schema: z.ZodType, components: SchemaComponents): JsonSchema {
  const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const moved = toComponentRefs(definition) as JsonSchema;
    const known = components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(moved)) throw new Error(`two different schemas are both named ${id}`);
    components[id] = moved;
  }
  return toComponentRefs(rest) as JsonSchema;
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
        ? [key, componentRef(inner.slice('#/$defs/'.length))]
        : [key, toComponentRefs(inner)],
    ),
  );
}

/** A `$ref` into components, resolved; anything else as it is. */
export function resolved(schema: JsonSchema, components: SchemaComponents): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) return schema;
  const { $ref: _, ...siblings } = schema;
  const target = components[ref.slice('#/components/schemas/'.length)];
  if (!target) throw new Error(`no component for ${ref}`);
  // Siblings of a $ref (a field's own description) win over the referred schema's.
  return { ...resolved(target, components), ...siblings };
}
