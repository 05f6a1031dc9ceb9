/// <reference types="astro/client" />
import type { APIRoute } from 'astro';
import { siteOpenApi } from '../../../docs/site-docs.ts';

/** The OpenAPI 3.1 document of v1, written into the site at /api/public/openapi.json. */
export const GET: APIRoute = () =>
  new Response(JSON.stringify(siteOpenApi(import.meta.env.BASE_URL), null, 2), { headers: { 'content-type': 'application/json' } });
