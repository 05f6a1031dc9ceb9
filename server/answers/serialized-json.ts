/** A response body already serialized (from rows stored rendered): its UTF-8 JSON, sent as it is. */
export class SerializedJson {
  constructor(readonly bytes: Buffer) {}
}

/** The body as UTF-8 JSON. */
export const serialize = (body: unknown): Buffer => (body instanceof SerializedJson ? body.bytes : Buffer.from(JSON.stringify(body)));
