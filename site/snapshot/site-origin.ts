import { EXAMPLE_ORIGIN } from '../openapi/document.ts';

/**
 * Where this build's site is served, for snippets that need absolute URLs: `ODSNAP_SITE_URL`
 * (see astro.config.mjs), else the address `npm start` serves on; `server` adds the base path.
 */
export function siteOrigin(base: string): { readonly origin: string; readonly server: string } {
  const origin = (process.env.ODSNAP_SITE_URL || EXAMPLE_ORIGIN).replace(/\/+$/, '');
  return { origin, server: `${origin}${base.replace(/\/+$/, '')}` };
}
