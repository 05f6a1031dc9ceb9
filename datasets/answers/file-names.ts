/**
 * How the static tree escapes a path value into a file name (see fileNameOf in static-files.ts,
 * which also refuses names no file system takes). Apart, with no imports, so that the site's
 * browser code links to record files by the very same rule.
 */

/** `/`, `\` and control characters, which a file name may not hold; `%` and a leading `.`, which would read as something else. */
const UNSAFE = /[/\\%\x00-\x1f\x7f]|^\./g;

/** A path value with what a file name may not hold percent-encoded; `%` among them, so valueOfFileName can reverse it. */
export const escapeFileName = (value: string): string => value.replace(UNSAFE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** The file name as a URL path segment: encoded once more, as static hosts decode a URL path before looking for the file. */
export const fileNameInUrl = (value: string): string => encodeURIComponent(escapeFileName(value));
