import { Memo } from '../core/memo.ts';
import type { SnapshotSource } from '../core/snapshot/manifest.ts';
import type { ZoneOffsets } from '../core/zoned-time.ts';
import { invalidParameter, refusedParameters } from '../core/problem.ts';
import { envelopeFor, type Envelope } from '../datasets/answers/envelope.ts';
import { kindOf } from '../datasets/answers/index.ts';
import { serialize } from '../datasets/answers/serving.ts';
import { renderContext, type RenderContext } from '../datasets/vocabulary/render.ts';
import type { Route as EndpointMatch } from '../datasets/vocabulary/router.ts';
import { withEscapes } from '../datasets/vocabulary/written.ts';
import { linksVary } from './http/link-base.ts';
import { deliver, negotiate, represent, send, type Body } from './http/respond.ts';
import type { Answer } from './http/route.ts';
import { KeptAnswers } from './kept-answers.ts';
import type { SnapshotHost } from './snapshot-host.ts';

const API_CACHE = 'public, max-age=60';

/** What the answers kept ready for the wire may take, at most (see kept-answers.ts). */
const KEPT_BYTES = 16 * 1024 * 1024;

/**
 * Answers a v1 endpoint the router found for a path: its parameters read and checked, a lease on
 * the snapshot asked for, the answer's kind serving it, the body sent as its upstream writes it.
 */
export function endpointAnswer(options: { readonly host: SnapshotHost; readonly publicUrl?: string }): Answer<EndpointMatch> {
  const vary = linksVary(options.publicUrl);
  const kept = new KeptAnswers(KEPT_BYTES);
  // Requests come with a few bases and time zones: their contexts are made once.
  const contexts = new Memo<string, RenderContext>(256);
  const contextOf = (base: string, timeZone: string, zoneOffsets: ZoneOffsets | undefined) => {
    const key = `${timeZone} ${base} ${zoneOffsets?.nonZero} ${zoneOffsets?.zero}`;
    return contexts.get(key) ?? contexts.remember(key, renderContext({ baseUrl: base, timeZone, ...(zoneOffsets ? { zoneOffsets } : {}) }));
  };
  // An endpoint's envelope, as its snapshot learned it, resolved once per base.
  const envelopes = new Memo<string, Envelope | undefined>(1024);
  const envelopeOf = (snapshot: string, endpoint: string, base: string, resolve: () => Envelope | undefined) =>
    envelopes.of(`${snapshot} ${endpoint} ${base}`, resolve);

  return async ({ request, response, url, base }, found) => {
    // An answer kept ready is one of the current snapshot, asked for with no query (no `snapshot`, no `timezone`).
    const keptAs =
      kindOf(found.endpoint.answer).server.keepsAnswers && !url.search
        ? `${base}\n${url.pathname}\n${negotiate(request.headers['accept-encoding'])}`
        : undefined;
    if (keptAs) {
      const { served, release } = options.host.lease();
      try {
        const answer = kept.get(served.id, keptAs);
        if (answer) return deliver(request, response, answer);
      } finally {
        release();
      }
    }
    // Without a prototype: a parameter named constructor or __proto__ is a parameter like any other.
    const query: Record<string, string> = Object.create(null);
    if (url.search)
      for (const [name, value] of url.searchParams) {
        if (Object.hasOwn(query, name)) throw invalidParameter(name, `${name} is given more than once`);
        query[name] = value;
      }
    // `snapshot` is odsnap's own, not the spec's: which snapshot to answer from (the current one by default).
    const { served, release } = query.snapshot === undefined ? options.host.lease() : await options.host.leaseOf(query.snapshot);
    try {
      const { endpoint, dataset } = found;
      // What the upstream defaults to where the spec shows no default (a list's page size), and
      // what its envelopes hold beyond the spec's: answered as it answered (see the manifest's endpoints).
      const upstream = served.snapshot.manifest.endpoints?.[endpoint.fullPath];
      const parsed = endpoint.parse({ ...upstream?.defaults, ...query, ...found.params });
      if (!parsed.success) throw refusedParameters(parsed.error.issues);
      const params = parsed.data;
      const context = contextOf(base, (params.timezone as string | undefined) ?? 'UTC', upstream?.zoneOffsets);
      const envelope = envelopeOf(served.snapshot.id, endpoint.fullPath, base, () => envelopeFor(upstream, context));
      const connection = served.onDemandConnection();
      let body: unknown;
      try {
        body = await kindOf(endpoint.answer).server.serve(
          { served: served.tables, dataset, endpoint, path: url.pathname, params, query, context, base, connection, envelope },
          endpoint.answer,
        );
      } finally {
        connection.release();
      }
      const answerBody: Body = {
        status: 200,
        type: 'application/json; charset=utf-8',
        content: asWritten(serialize(body), served.snapshot.manifest.source),
        cacheControl: API_CACHE,
        identity: [served.id, base, url.pathname, url.search],
        vary,
        headers: { 'x-odsnap-snapshot': served.id },
      };
      // Kept only while its snapshot is the one served: one answered from the snapshot before a swap would let go every answer kept since.
      if (!keptAs || served.id !== options.host.current.id) return send(request, response, answerBody);
      const answer = await represent(request, answerBody);
      kept.set(served.id, keptAs, answer);
      return deliver(request, response, answer);
    } finally {
      release();
    }
  };
}

/** A body with the escapes its upstream writes where JSON lets a writer choose (see the manifest's source). */
function asWritten(bytes: Buffer, source: SnapshotSource): Buffer {
  const escapes = source.kind === 'pull' ? source.escapes : undefined;
  return escapes ? Buffer.from(withEscapes(bytes.toString(), escapes)) : bytes;
}
