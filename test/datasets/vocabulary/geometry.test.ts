import { describe, expect, it } from 'vitest';
import { readGeometry, type GeometryRead } from '../../../datasets/vocabulary/geometry.ts';
import { GEOMETRY_FORMS, writeGeometry } from '../../fixtures/geometry-forms.ts';

/** Geometry in the forms and reference systems upstreams write, read as WGS 84 lon/lat outlines. */

const square = {
  type: 'Polygon',
  coordinates: [
    [
      [21.0, 52.2],
      [21.001, 52.2],
      [21.001, 52.201],
      [21.0, 52.201],
      [21.0, 52.2],
    ],
  ],
};
const point = { type: 'Point', coordinates: [21.0123, 52.2345] };
const outlines = (read: GeometryRead | undefined) => (read?.type === 'outlines' ? read.outlines : read);

const closeTo = (actual: unknown, expected: number[][]) => {
  expect(Array.isArray(actual), JSON.stringify(actual)).toBe(true);
  const rings = actual as number[][];
  expect(rings.length).toBe(expected.length);
  rings.forEach((ring, i) => ring.forEach((value, j) => expect(value).toBeCloseTo(expected[i]![j]!, 7)));
};

describe('readGeometry', () => {
  it.each(GEOMETRY_FORMS)('reads a polygon and a point written as %s back in longitude and latitude', (form) => {
    closeTo(outlines(readGeometry(writeGeometry(square, form))), [square.coordinates[0]!.flat()]);
    closeTo(outlines(readGeometry(writeGeometry(point, form))), [point.coordinates]);
  });

  it('reads GML 3.2 in EPSG:4326 by its URN latitude first, and by the older EPSG: name longitude first', () => {
    closeTo(outlines(readGeometry('<gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>52.1 21.2</gml:pos></gml:Point>')), [[21.2, 52.1]]);
    closeTo(outlines(readGeometry('<gml:Point srsName="http://www.opengis.net/def/crs/EPSG/0/4326"><gml:pos>52.1 21.2</gml:pos></gml:Point>')), [[21.2, 52.1]]);
    closeTo(outlines(readGeometry('<gml:Point srsName="EPSG:4326"><gml:coordinates>21.2,52.1</gml:coordinates></gml:Point>')), [[21.2, 52.1]]);
  });

  it('reads the outer ring of each polygon of a multipolygon, in WKT and EWKT', () => {
    const read = readGeometry(
      'MULTIPOLYGON (((21 52, 21.1 52, 21.1 52.1, 21 52)), ((22 53, 22.1 53, 22 53.1, 22 53), (22.01 53.01, 22.02 53.01, 22.01 53.02, 22.01 53.01)))',
    );
    closeTo(outlines(read), [
      [21, 52, 21.1, 52, 21.1, 52.1, 21, 52],
      [22, 53, 22.1, 53, 22, 53.1, 22, 53],
    ]);
    closeTo(outlines(readGeometry('SRID=4326;MULTIPOINT ((21 52), (22 53))')), [
      [21, 52],
      [22, 53],
    ]);
    closeTo(outlines(readGeometry('POINT Z (21 52 100)')), [[21, 52]]);
  });

  it('says which reference system it cannot convert, and does not take projected metres for degrees', () => {
    expect(readGeometry('SRID=9999;POINT (1 2)')).toEqual({ type: 'unknown-crs', crs: 'EPSG:9999' });
    expect(readGeometry({ ...point, crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::27700' } } })).toEqual({
      type: 'unknown-crs',
      crs: 'urn:ogc:def:crs:EPSG::27700',
    });
    expect(readGeometry('POINT (637231.09 486786.39)')?.type).toBe('unknown-crs');
  });

  it('takes no other string or object for geometry', () => {
    for (const value of ['POINTLESS', 'Polygon street 5', '<b>POLYGON</b>', { type: 'Feature' }, [21, 52], null]) expect(readGeometry(value)).toBeUndefined();
  });
});
