import type { Gbfs, SystemInformation } from 'gbfs-typescript-types/v3.0';
import { isSynthetic } from '../../core/snapshot/manifest.ts';
import { languages, text } from '../../core/text.ts';
import type { Feed, FeedDocument } from '../vocabulary/feed.ts';
import { headerOf, localized, TIME_ZONE, TTL } from './gbfs-header.ts';
import { geofencingZones, vehicleStatus, vehicleTypes } from './gbfs-live.ts';

/**
 * The bike share as a GBFS 3.0 feed (https://github.com/MobilityData/gbfs/blob/v3.0/gbfs.md): the
 * discovery file, the system's facts, and, from the newest capture of the live map, its bicycles
 * and zones (gbfs-live.ts). docs/gbfs.md says how each field maps and what is left out.
 */

/**
 * GBFS requires an e-mail address for reports about the feed, which no v1 data holds: the
 * publisher of the mirror gives one (`odsnap build --contact`, `odsnap serve --contact`). Without
 * it, an address that can reach no one (RFC 2606's `.invalid`), and says so.
 */
export const NO_CONTACT = 'no-contact-given@odsnap.invalid';

/**
 * Whether the system is open is not in the v1 data (seasons are counted after the fact, the
 * running one only so far): OSM's `unknown` state, at every hour.
 */
const OPENING_HOURS = '24/7 unknown';

const systemInformation: FeedDocument = {
  file: 'system_information.json',
  async make(source) {
    const { manifest } = source;
    const upstream = manifest.source.kind === 'pull' && !isSynthetic(manifest.source) ? (manifest.source.publicBase ?? manifest.source.upstream) : undefined;
    const body: SystemInformation = {
      ...(await headerOf(source)),
      data: {
        // Globally unique, as GBFS asks: the data set at the upstream's host.
        system_id: `${upstream ? new URL(upstream).host : 'odsnap-sample'}-${source.dataset.name}`,
        languages: [...languages],
        name: localized(source.dataset.title),
        opening_hours: OPENING_HOURS,
        feed_contact_email: source.contact ?? NO_CONTACT,
        timezone: TIME_ZONE,
        // The snapshot's licence is named by its SPDX id (core/snapshot/manifest.ts); the schema test holds it to GBFS's list.
        license_id: manifest.licence.id as NonNullable<SystemInformation['data']['license_id']>,
        // The manifest names no organisation, but says whom to credit and how: that sentence, whole (it is English).
        attribution_organization_name: [{ text: manifest.licence.attribution, language: 'en' }],
        ...(upstream ? { attribution_url: upstream } : {}),
      },
    };
    return { body };
  },
};

/** The files gbfs.json lists, in its order. */
const listed: readonly FeedDocument[] = [systemInformation, vehicleTypes, vehicleStatus, geofencingZones];

const discovery: FeedDocument = {
  file: 'gbfs.json',
  async make(source) {
    const feeds = listed.map((document) => ({
      name: document.file.replace(/\.json$/, '') as Gbfs['data']['feeds'][number]['name'],
      url: source.url(document.file),
    }));
    if (feeds.some((feed) => feed.url === undefined))
      return { unavailable: 'GBFS lists its files by absolute URL, and no absolute address is known here (build the tree with --base-url https://…)' };
    const body: Gbfs = { ...(await headerOf(source)), data: { feeds: feeds.map(({ name, url }) => ({ name, url: url! })) } };
    return { body };
  },
};

export const gbfs: Feed = {
  name: 'gbfs',
  title: text('GBFS 3.0 feed of the bike share', 'Kanał GBFS 3.0 roweru miejskiego'),
  maxAge: TTL,
  documents: [discovery, ...listed],
};
