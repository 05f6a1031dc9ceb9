/** A percent-encoded part of a URL (a hash, a path segment) as text; as it is when it is not valid percent-encoding (`%zz`, a lone `%`). */
export function decodeUriPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
