// The site's browser code: type-checked with the DOM's types, bundled by Astro's Vite.
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />

/** Vite: the URL of a file it copies into the build as it is. */
declare module '*?url' {
  const url: string;
  export default url;
}

/** Vite: a stylesheet imported for its side effect, bundled with the page. */
declare module '*.css';
