/**
 * Instants shown in an IANA time zone, as v1 requires (`timezone` parameter, ISO 8601 with offset).
 * Offsets are looked up through Intl once per UTC day and zone, because rendering millions of
 * readings must not call Intl for each.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const canonicalNames = new Map<string, string | undefined>();

/** The zone's canonical name, or undefined when it is not an IANA zone this runtime knows. */
export function canonicalTimeZone(name: string): string | undefined {
  if (canonicalNames.has(name)) return canonicalNames.get(name);
  let canonical: string | undefined;
  if (/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) {
    try {
      canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      canonical = undefined;
    }
  }
  // Bounded: names come from requests.
  if (canonicalNames.size < 1000) canonicalNames.set(name, canonical);
  return canonical;
}

function exactOffsetMinutes(ms: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(ms)) fields[part.type] = Number(part.value);
  const wall = Date.UTC(fields.year!, fields.month! - 1, fields.day!, fields.hour!, fields.minute!, fields.second!);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** Per zone and UTC day: the day's offset when it holds all day, or null on a transition day. */
const dayOffsets = new Map<string, Map<number, number | null>>();

/** Minutes east of UTC in `timeZone` at the instant `ms` (Europe/Warsaw: 60 in winter, 120 in summer). */
export function offsetMinutes(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  let days = dayOffsets.get(timeZone);
  if (!days) dayOffsets.set(timeZone, (days = new Map()));
  const dayIndex = Math.floor(ms / 86_400_000);
  let offset = days.get(dayIndex);
  if (offset === undefined) {
    const start = exactOffsetMinutes(dayIndex * 86_400_000, timeZone);
    const end = exactOffsetMinutes((dayIndex + 1) * 86_400_000 - 1000, timeZone);
    offset = start === end ? start : null;
    days.set(dayIndex, offset);
  }
  return offset ?? exactOffsetMinutes(ms, timeZone);
}

const pad = (n: number) => String(n).padStart(2, '0');

export function formatOffset(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** How an offset is written: ISO 8601 allows `Z` (for zero), ±hh:mm, ±hhmm and ±hh. */
export type OffsetForm = 'Z' | '+hh:mm' | '+hhmm' | '+hh';

/**
 * How an upstream writes offsets in a time zone it was asked for: one form for a zone's non-zero
 * offsets, and one for zero (a zone such as Atlantic/Reykjavik, or London in winter).
 */
export interface ZoneOffsets {
  readonly nonZero: Exclude<OffsetForm, 'Z'>;
  readonly zero: OffsetForm;
}

/** The form of an offset as written (`Z`, `+02:00`, `+0200`, `+02`); undefined for anything else. */
export function offsetFormOf(written: string): OffsetForm | undefined {
  if (written === 'Z') return 'Z';
  return /^[+-]\d{2}:\d{2}$/.test(written) ? '+hh:mm' : /^[+-]\d{4}$/.test(written) ? '+hhmm' : /^[+-]\d{2}$/.test(written) ? '+hh' : undefined;
}

/** An offset in minutes written in `form` (one of whole hours only as ±hh: a half hour needs the minutes). */
export function offsetIn(minutes: number, form: OffsetForm): string {
  const full = formatOffset(minutes);
  switch (form) {
    case 'Z':
      return minutes === 0 ? 'Z' : full;
    case '+hh:mm':
      return full;
    case '+hhmm':
      return full.replace(':', '');
    case '+hh':
      return minutes % 60 === 0 ? full.slice(0, 3) : full;
  }
}

/** An offset as an upstream writing `offsets` writes it in a zone it was asked for. */
export const zoneOffsetText = (minutes: number, offsets: ZoneOffsets): string => offsetIn(minutes, minutes === 0 ? offsets.zero : offsets.nonZero);

const offsetTexts = new Map<number, string>();
const zoneOffsetTexts = new WeakMap<ZoneOffsets, Map<number, string>>();
const twoDigits = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
/** The last local day formatted, and its text: consecutive instants (hourly readings) mostly share one. */
let lastDay = { index: NaN, text: '' };

/**
 * `2025-03-30T03:00:00+02:00`: whole seconds unless the instant has milliseconds. Built from
 * cached parts rather than through Date, as the server and pull format millions of readings.
 */
export function formatInstant(ms: number, timeZone: string, offsets?: ZoneOffsets): string {
  const offset = offsetMinutes(ms, timeZone);
  let texts = offsetTexts;
  if (offsets) {
    const known = zoneOffsetTexts.get(offsets);
    if (known) texts = known;
    else zoneOffsetTexts.set(offsets, (texts = new Map()));
  }
  let suffix = texts.get(offset);
  if (suffix === undefined) texts.set(offset, (suffix = offsets ? zoneOffsetText(offset, offsets) : formatOffset(offset)));
  const local = ms + offset * 60_000;
  const dayIndex = Math.floor(local / 86_400_000);
  if (dayIndex !== lastDay.index) lastDay = { index: dayIndex, text: new Date(dayIndex * 86_400_000).toISOString().slice(0, 11) };
  const inDay = local - dayIndex * 86_400_000;
  const seconds = Math.floor(inDay / 1000);
  const time = `${twoDigits[Math.floor(seconds / 3600)]}:${twoDigits[Math.floor(seconds / 60) % 60]}:${twoDigits[seconds % 60]}`;
  const millis = inDay % 1000;
  return `${lastDay.text}${time}${millis === 0 ? '' : `.${String(millis).padStart(3, '0')}`}${suffix}`;
}

/** The local calendar day of an instant in `timeZone`. */
export const zonedDayOf = (ms: number, timeZone: string): string => new Date(ms + offsetMinutes(ms, timeZone) * 60_000).toISOString().slice(0, 10);

/** The local hour (0–23) of an instant in `timeZone`. */
export const zonedHourOf = (ms: number, timeZone: string): number => new Date(ms + offsetMinutes(ms, timeZone) * 60_000).getUTCHours();

/** The first instant of a local calendar day: how v1 reads `from`/`to` days in a `timezone`. */
export function zonedDayStart(day: string, timeZone: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  const guess = wall - offsetMinutes(wall, timeZone) * 60_000;
  return wall - offsetMinutes(guess, timeZone) * 60_000;
}

/** ISO 8601 extended date and time with an offset: seconds, fraction and the offset's minutes optional. */
export const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * Epoch ms of an ISO 8601 instant with offset in any form the standard allows (`…T10:00Z`,
 * `+0200`, `+02`, a comma before the fraction), which Date.parse does not all read; NaN for
 * anything else. Fractions finer than a millisecond are cut to it.
 */
export function instantMs(text: string): number {
  const m = ISO_INSTANT.exec(text);
  if (!m) return NaN;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || hour > 24 || minute > 59 || second > 60) return NaN;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day || (hour === 24 && (minute || second || millis))) return NaN;
  const zone = m[8]!;
  if (zone === 'Z') return wall;
  const sign = zone[0] === '-' ? -1 : 1;
  const offset = Number(zone.slice(1, 3)) * 60 + (zone.length > 3 ? Number(zone.slice(-2)) : 0);
  return wall - sign * offset * 60_000;
}
