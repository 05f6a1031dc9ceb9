import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotatingId } from '../../datasets/citybike/gbfs-live.ts';
import { latestInSnapshot } from '../../server/latest-live-rows.ts';
import { GBFS_FILES, gbfsSchemaErrors, newestCapture, type LiveBikeRow } from '../fixtures/gbfs.ts';
import { startTestServer, type TestServer } from '../fixtures/server.ts';

const FEED = '/gbfs/citybike';
/** The bicycle types the feed maps (datasets/citybike/gbfs-live.ts); the tiny city's others are electric. */
const MAPPED = new Set(['standard', 'tandem', 'child']);

const byPlace = <T extends { lat: number; lon: number }>(rows: T[]) => [...rows].sort((a, b) => a.lat - b.lat || a.lon - b.lon);

describe('the GBFS feed the server answers', () => {
  let server: TestServer;
  let capture: Awaited<ReturnType<typeof newestCapture>>;

  beforeAll(async () => {
    server = await startTestServer({ contact: 'feeds@example.org' });
    capture = await newestCapture();
  });
  afterAll(() => server?.close());

  it('answers every file valid under the official GBFS 3.0 schema, and lists each in gbfs.json by an absolute URL that answers it', async () => {
    const discovery = await server.json(`${FEED}/gbfs.json`);
    expect(gbfsSchemaErrors('gbfs.json', discovery)).toEqual([]);
    const listed = discovery.data.feeds.map((feed: { url: string }) => feed.url);
    expect(listed).toEqual(GBFS_FILES.slice(1).map((file) => new URL(`${FEED}/${file}`, server.url).href));
    for (const file of GBFS_FILES.slice(1)) expect(gbfsSchemaErrors(file, await server.json(`${FEED}/${file}`)), file).toEqual([]);
  });

  it('is held to schemas that refuse what GBFS refuses: an electric type without its range, which is why the feed leaves electric bicycles out', async () => {
    const types = await server.json(`${FEED}/vehicle_types.json`);
    const electric = { vehicle_type_id: 'electric', form_factor: 'bicycle', propulsion_type: 'electric_assist' };
    expect(gbfsSchemaErrors('vehicle_types.json', { ...types, data: { vehicle_types: [electric] } })).toContainEqual(
      expect.stringContaining("must have required property 'max_range_meters'"),
    );
  });

  it('holds in vehicle_status exactly the newest capture’s bicycles of the mapped types, where they stand and whether they can be rented', async () => {
    const { data, last_updated } = await server.json(`${FEED}/vehicle_status.json`);
    const mapped = capture.bikes.filter((bike) => MAPPED.has(bike.type));
    expect(mapped.length).toBeGreaterThan(0);
    expect(mapped.length).toBeLessThan(capture.bikes.length);
    const expected = mapped.map((bike: LiveBikeRow) => ({
      vehicle_id: rotatingId(bike),
      lat: bike.lat,
      lon: bike.lon,
      is_reserved: false,
      is_disabled: !bike.available,
      vehicle_type_id: bike.type,
    }));
    expect(byPlace(data.vehicles)).toEqual(byPlace(expected));
    expect(new Set(data.vehicles.map((vehicle: { vehicle_id: string }) => vehicle.vehicle_id)).size).toBe(mapped.length);
    expect(Date.parse(last_updated)).toBe(capture.bikes[0]!.captured_ms);
  });

  it('lists the mapped types of the newest capture in vehicle_types, and every zone of it as a named geofencing zone with no rules', async () => {
    const types = await server.json(`${FEED}/vehicle_types.json`);
    const mappedTypes = [...new Set(capture.bikes.map((bike) => bike.type).filter((type) => MAPPED.has(type)))].sort();
    expect(types.data.vehicle_types.map((type: { vehicle_type_id: string }) => type.vehicle_type_id)).toEqual(mappedTypes);
    const zones = await server.json(`${FEED}/geofencing_zones.json`);
    expect(zones.data.geofencing_zones.features.map((feature: any) => feature.properties.name[0].text)).toEqual(capture.zones.map((zone) => zone.name));
    expect(zones.data.global_rules).toEqual([]);
  });

  it('names the contact it was given, the snapshot’s licence by its SPDX id, and the attribution the snapshot asks for', async () => {
    const { data } = await server.json(`${FEED}/system_information.json`);
    const index = await server.json('/api/public');
    expect(data).toMatchObject({ feed_contact_email: 'feeds@example.org', license_id: index.licence.id, timezone: 'Europe/Warsaw', languages: ['en', 'pl'] });
    expect(data.attribution_organization_name).toEqual([{ text: index.licence.attribution, language: 'en' }]);
  });

  it('answers a file the feed does not have, or a feed no data set declares, with a not-found problem', async () => {
    for (const path of [`${FEED}/station_status.json`, `${FEED}/`, '/gbfs/air-quality/gbfs.json', '/gbfs/citybike/gbfs.json/x']) {
      const answer = await server.fetch(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get('content-type'), path).toBe('application/problem+json');
      expect((await answer.json()).type, path).toMatch(/\/problems\/not-found$/);
    }
  });
});

describe('the GBFS feed over live rows from elsewhere', () => {
  let server: TestServer;
  afterAll(() => server?.close());

  it('is as current as the latest live rows its source gives, with that capture’s time', async () => {
    const later = Date.parse('2031-05-04T12:00:00Z');
    // A capture made after the snapshot, as the live archive will give: every bicycle a little north.
    server = await startTestServer({
      latestLive: async (served, dataset, resource) =>
        (await latestInSnapshot(served, dataset, resource)).map((row) => ({
          ...row,
          captured_at: later,
          ...(resource === 'liveBike' ? { lat: (row.lat as number) + 0.01 } : {}),
        })),
    });
    const { bikes } = await newestCapture();
    const { data, last_updated } = await server.json(`${FEED}/vehicle_status.json`);
    expect(Date.parse(last_updated)).toBe(later);
    const north = bikes.filter((bike) => MAPPED.has(bike.type)).map((bike) => bike.lat + 0.01);
    expect(data.vehicles.map((vehicle: { lat: number }) => vehicle.lat).sort()).toEqual(north.sort());
    expect(gbfsSchemaErrors('vehicle_status.json', { data, last_updated, ttl: 60, version: '3.0' })).toEqual([]);
  });
});
