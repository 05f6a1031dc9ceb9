/**
 * The least and greatest of some numbers, undefined for none. A loop, not `Math.min(...values)`:
 * spread into a call, a region's daily totals (hundreds of thousands of values) overflow the stack.
 */
export function extremes(values: readonly number[]): { readonly min: number; readonly max: number } | undefined {
  if (!values.length) return undefined;
  let min = values[0]!;
  let max = min;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return { min, max };
}
