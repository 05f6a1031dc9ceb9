// The site: sources in site/, a static build into .cache/site (odsnap merges it with the static
// v1 tree). English at /, Polish at /pl/.
//
// Read from the environment, so the same sources serve any deployment:
//   ODSNAP_SITE_BASE  path the site is served under, e.g. /odsnap/ (default /)
//   ODSNAP_SITE_URL   origin of the deployment, e.g. https://data.example.org (optional; with the
//                     base, it is the address in curl snippets and the OpenAPI server)
//   ODSNAP_SITE_TREE  a static tree written by `odsnap build`, if any: examples link to its real files
//   ODSNAP_SITE_TILES raster tiles under the maps, a URL template with {z}/{x}/{y}, or none (the
//                     default): maps drawn offline as SVG alone (see core/base-map.ts)
import { defineConfig } from 'astro/config';

export default defineConfig({
  srcDir: './site',
  publicDir: './site/public',
  outDir: './.cache/site',
  output: 'static',
  base: process.env.ODSNAP_SITE_BASE || '/',
  ...(process.env.ODSNAP_SITE_URL ? { site: process.env.ODSNAP_SITE_URL } : {}),
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'never' },
  i18n: {
    locales: ['en', 'pl'],
    defaultLocale: 'en',
    routing: { prefixDefaultLocale: false },
  },
  // Nothing is fetched at build or run time: the site must work offline and from any static host.
  devToolbar: { enabled: false },
  vite: { build: { reportCompressedSize: false } },
});
