/**
 * The request URL the v1 form builds: the endpoint's path under the site's base, path
 * parameters filled in (or left as `{name}` while empty), then the query parameters that have a
 * value, in the form's order.
 */

export interface RequestField {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly value: string;
}

/** Encoded, but keeping the characters v1 values use and URLs allow as they are (`,` of a bbox, `:` of a time). */
const encode = (value: string) => encodeURIComponent(value).replace(/%2C/gi, ',').replace(/%3A/gi, ':');

export function requestUrl(base: string, path: string, fields: readonly RequestField[]): string {
  const values = new Map(fields.filter((field) => field.in === 'path').map((field) => [field.name, field.value.trim()]));
  const filled = path.replace(/\{(\w+)\}/g, (whole, name: string) => (values.get(name) ? encode(values.get(name)!) : whole));
  const query = fields
    .filter((field) => field.in === 'query' && field.value.trim() !== '')
    .map((field) => `${encode(field.name)}=${encode(field.value.trim())}`)
    .join('&');
  return `${base.replace(/\/+$/, '')}${filled}${query ? `?${query}` : ''}`;
}
