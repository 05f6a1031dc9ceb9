/**
 * How a web server should serve the tree: precompressed variants with the right Content-Type
 * and Content-Encoding, caching, CORS (the data is public), and Parquet, CSV (a gzip file,
 * downloaded as it is) and the DuckDB script with their media types (range requests work on
 * any static file). An nginx snippet, and `_headers` for static hosts
 * that read it (Netlify, Cloudflare Pages), which compress by themselves.
 */

import { NOT_FOUND_PAGE } from '../../core/published-tree.ts';

export const NGINX_SNIPPET = 'nginx.conf';
export const HEADERS_FILE = '_headers';

const JSON_CACHE = 'public, max-age=300';
const DOWNLOAD_CACHE = 'public, max-age=3600';
const ASSET_CACHE = 'public, max-age=31536000, immutable';
const EXPOSED = 'Content-Length, Content-Range, Accept-Ranges, ETag';

export const nginxSnippet = () => `# odsnap's static tree. Include inside the server block whose root is the tree, e.g.
#   server { listen 8080; root /srv/odsnap/dist; include /srv/odsnap/dist/nginx.conf; }
# Needs gzip_static (built into Debian's nginx) and brotli_static (Debian package
# libnginx-mod-http-brotli-static); without the latter, delete the brotli_static line.

charset utf-8;
charset_types application/json application/ld+json application/sql application/atom+xml;
etag on;

location /api/public/ {
    gzip_static on;
    brotli_static on;
    add_header Vary Accept-Encoding always;
    add_header Access-Control-Allow-Origin "*" always;
    add_header Cache-Control "${JSON_CACHE}" always;
    try_files $uri =404;
}

location /downloads/ {
    gzip_static on;
    brotli_static on;
    add_header Vary Accept-Encoding always;
    add_header Access-Control-Allow-Origin "*" always;
    add_header Access-Control-Expose-Headers "${EXPOSED}" always;
    add_header Cache-Control "${DOWNLOAD_CACHE}" always;
    location ~ \\.parquet$ {
        default_type application/vnd.apache.parquet;
        add_header Access-Control-Allow-Origin "*" always;
        add_header Access-Control-Expose-Headers "${EXPOSED}" always;
        add_header Cache-Control "${DOWNLOAD_CACHE}" always;
    }
    location ~ \\.csv\\.gz$ {
        default_type application/gzip;
        add_header Access-Control-Allow-Origin "*" always;
        add_header Access-Control-Expose-Headers "${EXPOSED}" always;
        add_header Cache-Control "${DOWNLOAD_CACHE}" always;
    }
    location ~ \\.sql$ {
        default_type application/sql;
        add_header Access-Control-Allow-Origin "*" always;
        add_header Cache-Control "${DOWNLOAD_CACHE}" always;
    }
    location ~ \\.jsonld$ {
        default_type application/ld+json;
        gzip_static on;
        brotli_static on;
        add_header Vary Accept-Encoding always;
        add_header Access-Control-Allow-Origin "*" always;
        add_header Cache-Control "${DOWNLOAD_CACHE}" always;
    }
}

location = /datapackage.json {
    gzip_static on;
    brotli_static on;
    add_header Vary Accept-Encoding always;
    add_header Access-Control-Allow-Origin "*" always;
    add_header Cache-Control "${DOWNLOAD_CACHE}" always;
}

# The site: pages are directories with an index.html; its scripts, styles and the DuckDB-WASM
# module are named by their content, so they never change. A path that is no page gets the
# site's 404 page (the tree's JSON paths above keep nginx's plain 404).
location / {
    gzip_static on;
    brotli_static on;
    add_header Vary Accept-Encoding always;
    add_header Cache-Control "${JSON_CACHE}" always;
    try_files $uri $uri/index.html =404;
    error_page 404 /${NOT_FOUND_PAGE};
}

location /_astro/ {
    gzip_static on;
    brotli_static on;
    types { application/wasm wasm; text/javascript js; text/css css; }
    add_header Vary Accept-Encoding always;
    add_header Cache-Control "${ASSET_CACHE}" always;
}
`;

export const headersFile = () => `# Netlify and Cloudflare Pages answer a path that is no file with /${NOT_FOUND_PAGE}, status 404, by themselves.
/api/public/*
  Access-Control-Allow-Origin: *
  Cache-Control: ${JSON_CACHE}

/api/public/*.atom
  Content-Type: application/atom+xml; charset=utf-8

/downloads/*
  Access-Control-Allow-Origin: *
  Access-Control-Expose-Headers: ${EXPOSED}
  Cache-Control: ${DOWNLOAD_CACHE}

/downloads/*.parquet
  Content-Type: application/vnd.apache.parquet

/downloads/*.csv.gz
  Content-Type: application/gzip

/downloads/*.sql
  Content-Type: application/sql; charset=utf-8

/downloads/*.jsonld
  Content-Type: application/ld+json

/datapackage.json
  Access-Control-Allow-Origin: *
  Cache-Control: ${DOWNLOAD_CACHE}

/_astro/*
  Cache-Control: ${ASSET_CACHE}
`;
