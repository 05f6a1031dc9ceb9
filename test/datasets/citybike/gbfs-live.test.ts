import { describe, expect, it } from 'vitest';
import { ringOf, rotatingId } from '../../../datasets/citybike/gbfs-live.ts';

const centre = { lat: 52.23, lon: 21.01 };
/** The shape the sample upstream sends: a closed ring of [longitude, latitude] pairs around the centre. */
const ring = [
  [21.011, 52.23],
  [21.01, 52.231],
  [21.009, 52.23],
  [21.01, 52.229],
  [21.011, 52.23],
];

describe('ringOf', () => {
  it('takes a closed ring of [longitude, latitude] pairs around the zone’s centre as it is', () => {
    expect(ringOf({ ...centre, area: ring })).toEqual(ring);
  });

  it.each([
    ['[latitude, longitude] pairs', ring.map(([lon, lat]) => [lat, lon])],
    ['a ring left open', ring.slice(0, -1)],
    ['fewer than four points', [ring[0], ring[1], ring[0]]],
    ['points of three numbers', ring.map((point) => [...point!, 0])],
    ['points as objects', ring.map(([lon, lat]) => ({ lon, lat }))],
    ['a ring elsewhere', ring.map(([lon, lat]) => [lon! + 1, lat])],
    ['a GeoJSON polygon', { type: 'Polygon', coordinates: [ring] }],
    ['nothing', []],
  ])('leaves out an area of %s, not guessing what it means', (_, area) => {
    expect(ringOf({ ...centre, area })).toBeUndefined();
  });
});

describe('rotatingId', () => {
  it('keeps a bicycle’s id while it stands, and changes it once it has moved', () => {
    const bike = { number: '61003', ...centre };
    expect(rotatingId(bike)).toBe(rotatingId({ ...bike }));
    expect(rotatingId({ ...bike, lat: bike.lat + 0.001 })).not.toBe(rotatingId(bike));
    expect(rotatingId({ ...bike, number: '61004' })).not.toBe(rotatingId(bike));
  });
});
