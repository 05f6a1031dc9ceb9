import { languages, type Text } from '../../core/text.ts';
import { formatInstant } from '../../core/zoned-time.ts';
import type { FeedSource } from '../vocabulary/feed.ts';

/** What every document of the GBFS feed carries (see gbfs.ts): its time, how long it holds, the version. */

export const GBFS_VERSION = '3.0';

/** The city the v1 service serves: the feed's times are written in its zone. */
export const TIME_ZONE = 'Europe/Warsaw';

/**
 * Seconds before a document may change: a capture of the live map can come every minute (the live
 * archive), and the server's answers are fresh for as long.
 */
export const TTL = 60;

/** The header of a document: the newest capture's time, else the snapshot's when no capture was made. */
export async function headerOf(source: FeedSource): Promise<{ last_updated: string; ttl: number; version: typeof GBFS_VERSION }> {
  const [bike] = await source.latest('liveBike');
  const ms = bike ? (bike.captured_at as number) : Date.parse(source.manifest.createdAt);
  return { last_updated: formatInstant(ms, TIME_ZONE), ttl: TTL, version: GBFS_VERSION };
}

/** A text in each language odsnap writes, as GBFS's localized strings. */
export const localized = (value: Text) => languages.map((language) => ({ text: value[language], language }));
