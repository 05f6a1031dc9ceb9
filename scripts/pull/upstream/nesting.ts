/**
 * Where JSON text first nests arrays and objects deeper than `max`, or undefined: checked on the
 * text, before parsing, in one pass that skips strings (unbounded depth overflows the stack of
 * whatever walks it).
 */
export function nestingPast(text: string, max: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // To the closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \\ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return i;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return undefined;
}
