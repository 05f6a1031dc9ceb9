import { z } from 'zod';
import type { Text } from '../../core/text.ts';
import { instantMs } from '../../core/zoned-time.ts';

/**
 * Resource fields are zod schemas carrying their docs as metadata, so one declaration validates
 * data, types the code, and writes JSON Schema, OpenAPI and the docs pages in both languages.
 */
export function doc<T extends z.ZodType>(schema: T, en: string, pl: string): T {
  return schema.meta({ description: en, 'x-description-pl': pl }) as T;
}

/** The English and Polish docs of a schema made with `doc`, if it has them. */
export function docOf(schema: z.ZodType): Text | undefined {
  const meta = schema.meta() as { description?: string; 'x-description-pl'?: string } | undefined;
  return meta?.description && meta['x-description-pl'] ? { en: meta.description, pl: meta['x-description-pl'] } : undefined;
}

/** A decimal number written as a string with exactly `scale` decimals, e.g. "1250000.00". */
export const decimal = (scale: number) =>
  z
    .string()
    .regex(new RegExp(`^-?\\d+\\.\\d{${scale}}$`), { error: `expected a decimal string with ${scale} decimals` })
    .meta({ format: `decimal(${scale})` });

/** A decimal number written as a string, any number of decimals (the spec names no scale), e.g. "23.5". */
export const decimalText = () =>
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, { error: 'expected a decimal number as a string' })
    .meta({ format: 'decimal' });

/** A hex colour as CSS writes one: #RGB, #RGBA, #RRGGBB or #RRGGBBAA. */
export const hexColour = () =>
  z.string().regex(/^#([0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$/, { error: 'expected a hex colour, #RGB, #RGBA, #RRGGBB or #RRGGBBAA' });

/** A calendar day, YYYY-MM-DD. */
export const day = () => z.iso.date();

/** An instant, ISO 8601 with an offset, in any form the standard allows (see instantMs). */
export const instant = () =>
  z
    .string()
    .refine((text) => !Number.isNaN(instantMs(text)), { error: 'expected an ISO 8601 date and time with an offset' })
    .meta({ format: 'date-time' });

/** An absolute http(s) address; every link field of v1 is one. */
export const link = () => z.url({ protocol: /^https?$/, error: 'expected an absolute http(s) address' });

/** A WGS 84 position, as the spec's `location` and `center` objects. */
export const position = (en: string, pl: string) =>
  doc(
    z.object({
      lat: doc(z.number().min(-90).max(90), 'Latitude, WGS 84.', 'Szerokość geograficzna, WGS 84.'),
      lon: doc(z.number().min(-180).max(180), 'Longitude, WGS 84.', 'Długość geograficzna, WGS 84.'),
    }),
    en,
    pl,
  );

/** A JSON value whose shape the spec does not show; kept as it comes. */
export const unshown = () => z.unknown();

/** A documented schema with a name: it becomes a component of the OpenAPI document. */
export function named<T extends z.ZodType>(id: string, schema: T, en: string, pl: string): T {
  return schema.meta({ id, title: id, description: en, 'x-description-pl': pl }) as T;
}
