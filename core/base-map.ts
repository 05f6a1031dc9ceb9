import { escapeHtml } from './text.ts';

/**
 * The raster tiles under the site's maps, chosen when the site is built (`odsnap build --tiles`,
 * or ODSNAP_TILES): a URL template with {z}, {x} and {y} (and optionally {s}, {r}), or `none` for
 * the map drawn offline as SVG alone. The build passes it to Astro as ODSNAP_SITE_TILES.
 */

/** OpenStreetMap's standard tiles: the default for a site viewed online. */
export const OSM_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

/** No tiles: the maps stay the SVG drawn at build time, and the site loads nothing from elsewhere. */
export const NO_TILES = 'none';

export interface BaseMap {
  readonly url: string;
  /** HTML credit the tile provider asks for, shown in the map's corner. */
  readonly attribution: string;
}

/** What is wrong with a `--tiles` value, or undefined for a good one. */
export function tilesProblem(value: string): string | undefined {
  if (value === NO_TILES) return undefined;
  if (!/^(https?:\/\/[^/\s]+\/|\/)\S*$/.test(value)) return 'must be none, or an http(s) URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png';
  const missing = ['{z}', '{x}', '{y}'].filter((part) => !value.includes(part));
  return missing.length ? `must hold ${missing.join(', ')}: the tile's zoom and column and row` : undefined;
}

/** The base map a setting names (unset counts as none: a site built without saying so stays offline). */
export function baseMapOf(setting: string | undefined): BaseMap | undefined {
  if (!setting || setting === NO_TILES) return undefined;
  const host = /^https?:\/\/([^/:]+)/.exec(setting)?.[1] ?? '';
  // OpenStreetMap's tile policy asks for this credit, linked; other servers are credited by name.
  const attribution = /(^|\.)openstreetmap\.org$/.test(host)
    ? '© <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
    : `Tiles: ${escapeHtml(host || setting)}`;
  return { url: setting, attribution };
}
