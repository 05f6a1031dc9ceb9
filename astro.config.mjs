// The site's sources live in site/ and build into dist/, beside the static v1 tree.
// Astro itself arrives with the site; these settings are the layout the rest of odsnap relies on.
export default {
  srcDir: './site',
  publicDir: './site/public',
  outDir: './dist',
};
