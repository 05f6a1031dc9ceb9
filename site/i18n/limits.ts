import type { Language } from '../../core/text.ts';
import type { Limits } from '../docs/endpoint-docs.ts';
import { uiOf } from './ui.ts';

/** A parameter's limits and default in words: `1 to 100; default 100`. */
export function limitsText(lang: Language, limits: Limits): string {
  const words = uiOf(lang).limits;
  const parts: string[] = [];
  if (limits.only !== undefined) parts.push(words.only(limits.only));
  if (limits.minimum !== undefined && limits.maximum !== undefined) parts.push(words.range(limits.minimum, limits.maximum));
  else if (limits.minimum !== undefined) parts.push(words.min(limits.minimum));
  else if (limits.maximum !== undefined) parts.push(words.max(limits.maximum));
  if (limits.maxLength !== undefined) parts.push(words.maxLength(limits.maxLength));
  if (limits.format && limits.format !== 'date') parts.push(words.format(limits.format));
  if (limits.default !== undefined) parts.push(words.default(limits.default));
  for (const example of limits.examples ?? []) parts.push(words.example(example));
  return parts.join('; ');
}
