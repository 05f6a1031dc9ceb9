import { Memo } from '../../core/memo.ts';
import type { IncomingMessage } from 'node:http';

/**
 * The base an answer's links are built on: the public URL when there is one, else the request's
 * own Host, so that links resolve where the client reached the server.
 */

const trimmed = (publicUrl: string | undefined) => publicUrl?.replace(/\/+$/, '');

/** Without a public URL, links follow the request's Host: a cache must not give one host's answer to another. */
export const linksVary = (publicUrl: string | undefined): 'Host' | undefined => (trimmed(publicUrl) ? undefined : 'Host');

export function linkBaseOf(publicUrl: string | undefined): (request: IncomingMessage) => string {
  const publicBase = trimmed(publicUrl);
  // Requests come with a few Host values: each is read once.
  const bases = new Memo<string, string>(256);
  return (request) => {
    if (publicBase) return publicBase;
    const host = request.headers.host;
    let base = host === undefined ? undefined : bases.get(host);
    if (base === undefined) {
      const named = host !== undefined && /^[A-Za-z0-9.\-:[\]]{1,255}$/.test(host);
      // A Host that is no host (or none, from HTTP/1.0): this server's own port on localhost, so links still resolve here.
      base = `http://${named ? host : `localhost:${request.socket.localPort}`}`;
      // Only a host name is remembered: any other Host would be a key as long as the client makes it.
      if (named) bases.remember(host, base);
    }
    return base;
  };
}
