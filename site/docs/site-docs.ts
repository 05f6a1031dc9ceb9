import { datasets } from '../../datasets/index.ts';
import { openApiDocument, type OpenApiDocument } from '../openapi/document.ts';
import { endpointDocs, type EndpointDoc } from './endpoint-docs.ts';

/**
 * The docs of this build, made once and shared by every page: the registry's data sets, with
 * the deployment read from the environment (see astro.config.mjs).
 */

const serverUrl = () => process.env.ODSNAP_SITE_URL || undefined;

let docs: ReadonlyMap<string, EndpointDoc> | undefined;
let openapi: OpenApiDocument | undefined;

/** Every endpoint's docs, by full path; `base` is the site's base path. */
export function siteDocs(base: string): ReadonlyMap<string, EndpointDoc> {
  docs ??= endpointDocs(datasets, { treeDir: process.env.ODSNAP_SITE_TREE || undefined, origin: serverUrl(), base }).docs;
  return docs;
}

/** The OpenAPI document; its server is the site's origin and base, where the server answers beside the site. */
export function siteOpenApi(base: string): OpenApiDocument {
  const origin = serverUrl();
  openapi ??= openApiDocument(datasets, { serverUrl: origin && `${origin.replace(/\/+$/, '')}${base.replace(/\/+$/, '')}` });
  return openapi;
}

export { datasets };
