import { describe, expect, it } from 'vitest';
import { BASE_URL_TOKEN, renderContext, resolveLinks } from '../../../datasets/vocabulary/render.ts';

describe('links in stored JSON', () => {
  const context = renderContext({ baseUrl: 'https://example.org/' });

  it('turns every {base_url} link, however deep, into a link of the context, query and fragment kept', () => {
    const stored = {
      id: 'P1',
      parcels: [
        {
          uri: `${BASE_URL_TOKEN}/api/public/rcn/parcels/1`,
          coordinates: [
            [21.0, 52.2],
            [21.1, 52.3],
          ],
        },
      ],
      termUri: `${BASE_URL_TOKEN}/api/public/rcn/dictionaries/land-uses?version=v1#B`,
    };
    expect(resolveLinks(stored, context)).toEqual({
      id: 'P1',
      parcels: [
        {
          uri: 'https://example.org/api/public/rcn/parcels/1',
          coordinates: [
            [21.0, 52.2],
            [21.1, 52.3],
          ],
        },
      ],
      termUri: 'https://example.org/api/public/rcn/dictionaries/land-uses?version=v1#B',
    });
  });

  it('leaves what it reads as it was, and gives back as they are the parts that hold no link', () => {
    const coordinates = [
      [21.0, 52.2],
      [21.1, 52.3],
    ];
    const stored = { parcels: [{ uri: `${BASE_URL_TOKEN}/api/public/rcn/parcels/1`, coordinates }], plain: { area: 12.5 } };
    const before = structuredClone(stored);
    const resolved = resolveLinks(stored, context) as typeof stored;
    expect(stored).toEqual(before);
    expect(resolved.parcels[0]!.coordinates).toBe(coordinates);
    expect(resolved.plain).toBe(stored.plain);
    expect(resolved.parcels).not.toBe(stored.parcels);
  });

  it('keeps a key named __proto__ as data, not as a prototype', () => {
    const stored = JSON.parse(`{"__proto__": {"uri": "${BASE_URL_TOKEN}/api/public/x"}, "a": "${BASE_URL_TOKEN}/api/public/y"}`);
    const resolved = resolveLinks(stored, context) as Record<string, unknown>;
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(resolved, '__proto__')?.value).toEqual({ uri: 'https://example.org/api/public/x' });
    expect(resolved.a).toBe('https://example.org/api/public/y');
  });
});
