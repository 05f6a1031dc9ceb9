import { addDays, dayToUtcMs, eachDay, weekdayOf } from '../../core/calendar.ts';
import type { Random } from '../vocabulary/random.ts';
import { city, pickDistrict, positionNear, slugOf, streetsOf } from '../vocabulary/sample-city.ts';
import { weatherOn, type Weather } from '../vocabulary/sample-weather.ts';
import type { RowSinks, SampleContext, SampleGenerator, SampleLive, Scale } from '../vocabulary/sample.ts';
import { zonedDayOf, zonedDayStart, zonedHourOf } from '../../core/zoned-time.ts';
import { sensorDefinitions } from './sensors.ts';
import type { RowOf } from '../../core/table.ts';
import { inRowOrder } from '../../core/row-order.ts';
import type * as tables from './tables.ts';
import { readings as readingsTable } from './tables.ts';

/**
 * The sample's air: GIOŚ reference stations measuring pollutants and low-cost sensors measuring
 * dust and weather. Winter brings heating smoke in the evening and smog in cold, calm spells;
 * summer brings midday ozone; traffic shows in NO₂ at rush hours. One station's history is
 * disabled and one station's live readings fail.
 */

const sizes: Record<Scale, { reference: number; lowCost: number }> = {
  tiny: { reference: 1, lowCost: 3 },
  small: { reference: 3, lowCost: 5 },
  city: { reference: 14, lowCost: 34 },
  region: { reference: 56, lowCost: 136 },
};

const referenceKinds = [
  ['traffic', ['PM10', 'PM25', 'NO2', 'CO', 'C6H6', 'SO2']],
  ['background', ['PM10', 'PM25', 'NO2', 'O3', 'SO2']],
  ['background', ['PM10', 'PM25', 'NO2', 'O3', 'SO2', 'CO', 'C6H6']],
] as const;
const lowCostSensors = ['PM10', 'PM25', 'TEMP', 'HUMIDITY', 'PRESSURE'] as const;

interface Site {
  readonly row: {
    id: string;
    provider: string;
    external_id: string;
    name: string;
    address: string;
    city: string;
    source: string;
    lat: number;
    lon: number;
    history_enabled: boolean;
  };
  readonly sensors: readonly string[];
  /** A GIOŚ reference station (publishes the hour just ended), else a low-cost sensor (a rolling hour every few minutes). */
  readonly reference: boolean;
  readonly traffic: number;
  readonly liveFails: boolean;
}

function sitesOf(context: SampleContext): Site[] {
  const { reference, lowCost } = sizes[context.scale];
  const taken = new Set<string>();
  return Array.from({ length: reference + lowCost }, (_, i) => {
    const random = context.random('air-quality', 'station', i);
    const isReference = i < reference;
    const district = pickDistrict(random);
    const street = random.pick(streetsOf(district));
    let name = `${city.name}, ${street}`;
    while (taken.has(slugOf(name))) name += ` ${random.int(2, 99)}`;
    taken.add(slugOf(name));
    const [kind, sensors] = isReference ? referenceKinds[i % referenceKinds.length]! : ['low-cost', lowCostSensors];
    const { lat, lon } = positionNear(random, district, district.radiusKm * 0.6);
    return {
      row: {
        id: slugOf(name),
        provider: isReference ? 'GIOŚ' : 'Airly',
        external_id: String(isReference ? 400 + i * 37 + random.int(0, 30) : 80_000 + i * 113 + random.int(0, 100)),
        name,
        address: `${street} ${random.int(1, 200)}`,
        city: city.name,
        source: isReference ? 'GIOŚ PJP API' : 'Airly API',
        lat,
        lon,
        history_enabled: i !== reference + 2,
      },
      sensors,
      reference: isReference,
      traffic: kind === 'traffic' ? random.between(1.4, 1.9) : random.between(0.8, 1.1),
      liveFails: i === reference + 1,
    };
  });
}

/** A bump centred on hour `peak` with half-width `width`. */
const bump = (hour: number, peak: number, width: number) => Math.exp(-(((hour - peak) / width) ** 2));

/** 1 in mid-January, 0 in mid-July. */
const winterness = (day: string) => (Math.cos((2 * Math.PI * ((dayToUtcMs(day) - dayToUtcMs(`${day.slice(0, 4)}-01-15`)) / 86_400_000)) / 365) + 1) / 2;

type Values = Record<string, number>;

/** Every sensor's value at one station in one local hour; always draws the same numbers in the same order. */
function valuesAt(random: Random, hour: number, site: Site, weather: Weather, winter: number, smog: number, weekend: boolean): Values {
  const heating = 1 + winter * (0.5 * bump(hour, 8, 1.5) + 0.9 * bump(hour, 20, 2));
  const rush = (1 + 0.8 * bump(hour, 8, 1.5) + 0.7 * bump(hour, 18, 2)) * (weekend ? 0.75 : 1);
  const washout = weather.rainMm > 0 ? 0.75 : 1;
  const pm10 = (15 + 18 * winter) * heating * smog * washout * random.logNormal(1, 0.25);
  const no2 = (17 + 15 * winter) * rush * site.traffic * Math.sqrt(smog) * random.logNormal(1, 0.2);
  const temp = weather.tempC + (2 + 3 * (1 - winter)) * Math.sin((2 * Math.PI * (hour - 9)) / 24) + random.normal(0, 0.5);
  return {
    PM10: pm10,
    PM25: pm10 * (0.6 + 0.15 * winter) * random.logNormal(1, 0.08),
    NO2: no2,
    O3: (((25 + 60 * (1 - winter)) * (0.4 + 0.9 * bump(hour, 15, 4))) / (1 + 0.01 * no2)) * random.logNormal(1, 0.15),
    SO2: (3 + 8 * winter) * (1 + 0.3 * bump(hour, 20, 3)) * Math.sqrt(smog) * random.logNormal(1, 0.3),
    CO: (280 + 350 * winter) * Math.sqrt(heating * rush) * smog ** 0.7 * random.logNormal(1, 0.15),
    C6H6: (0.4 + 1.6 * winter) * Math.sqrt(heating * rush) * smog * random.logNormal(1, 0.3),
    TEMP: temp,
    HUMIDITY: Math.min(100, Math.max(20, 75 - 2.2 * (temp - weather.tempC) + 10 * winter + (weather.rainMm > 0 ? 10 : 0) + random.normal(0, 4))),
    PRESSURE: (weather.calm ? 1024 : 1011) + random.normal(0, 0.4),
  };
}

const rounded = (code: string, value: number) => (code === 'CO' ? Math.round(value) : Math.round(value * 10) / 10);

/** Each local hour of a day (23 or 25 on DST days) with every sensor's value. */
function* hoursOf(context: SampleContext, site: Site, day: string): Generator<[number, Values]> {
  const weather = weatherOn(context, day);
  const smogDay = context.random('air-quality', 'smog', day);
  const smog = weather.calm && weather.tempC < 2 ? smogDay.between(1.8, 3.2) : 1;
  const random = context.random('air-quality', 'day', site.row.id, day);
  const weekend = weekdayOf(day) >= 5;
  const winter = winterness(day);
  const end = zonedDayStart(addDays(day, 1), city.timeZone);
  for (let hour = zonedDayStart(day, city.timeZone); hour < end; hour += 3_600_000) {
    yield [hour, valuesAt(random, zonedHourOf(hour, city.timeZone), site, weather, winter, smog, weekend)];
  }
}

export const generate: SampleGenerator<typeof tables> = (context, out) => {
  for (const s of sensorDefinitions) {
    out.sensors.write({
      code: s.code,
      label: s.label,
      unit: s.unit,
      icon: s.icon,
      sort_order: s.sortOrder,
      group_code: s.groupCode,
      group_order: s.groupOrder,
      min_value: s.minValue,
      max_value: s.maxValue,
      fade_start_minutes: s.fadeStartMinutes,
      max_age_minutes: s.maxAgeMinutes,
      legend: [...s.legend],
    });
  }
  const sites = sitesOf(context);
  for (const site of sites) {
    out.stations.write(site.row);
    // A station's readings are held for one UTC year, its partition, and written in the table's order.
    let year: RowOf<typeof tables.readings.columns>[] = [];
    const writeYear = () => {
      for (const row of inRowOrder(readingsTable, year)) out.readings.write(row);
      year = [];
    };
    for (const day of site.row.history_enabled ? eachDay(context.start, context.until) : []) {
      if (context.random('air-quality', 'outage', site.row.id, day).chance(0.004)) continue;
      const gaps = context.random('air-quality', 'gaps', site.row.id, day);
      for (const [hour, values] of hoursOf(context, site, day)) {
        if (year.length && new Date(hour).getUTCFullYear() !== new Date(year[0]!.read_at).getUTCFullYear()) writeYear();
        for (const code of site.sensors) {
          if (gaps.chance(0.01) || hour >= context.now) continue;
          year.push({ station_id: site.row.id, sensor_code: code, read_at: hour, value: rounded(code, values[code]!) });
        }
      }
    }
    writeYear();
  }
  writeLive(context, sites, context.now, out);
};

/** The live readings: the stations, and what each shows at `at` (see writeLive). */
export const live: SampleLive<typeof tables> = (context, at, out) => {
  const sites = sitesOf(context);
  // The device endpoint finds a station by its external id.
  for (const site of sites) out.stations.write(site.row);
  writeLive(context, sites, at, out);
};

const HOUR = 3_600_000;
/** How often a low-cost sensor publishes its rolling hour. */
const LOW_COST_EVERY = 5 * 60_000;

/**
 * What each station shows live at `at`, labelled, as the history is, by the start of the hour it
 * averages: a reference station the hour just ended (its history's value, which the register
 * gets at midnight), a low-cost sensor the hour up to its last publication, every five minutes,
 * so between whole hours a blend of the two hours it spans. At a whole hour both show that hour's
 * value; one station's live readings fail.
 */
function writeLive(context: SampleContext, sites: readonly Site[], at: number, out: RowSinks<typeof tables>) {
  for (const site of sites) {
    out.live_stations.write({
      captured_at: at,
      station_id: site.row.id,
      error: site.liveFails ? { code: 'PROVIDER_TIMEOUT', message: 'The provider did not answer within 10 s.' } : null,
    });
  }
  for (const site of sites.filter((s) => !s.liveFails)) {
    const from = site.reference ? Math.floor(at / HOUR) * HOUR - HOUR : Math.floor(at / LOW_COST_EVERY) * LOW_COST_EVERY - HOUR;
    const hour = Math.floor(from / HOUR) * HOUR;
    const share = (from - hour) / HOUR;
    const [first, second] = [valuesOfHour(context, site, hour), share > 0 ? valuesOfHour(context, site, hour + HOUR) : undefined];
    for (const code of site.sensors) {
      const value = second ? first[code]! * (1 - share) + second[code]! * share : first[code]!;
      out.live_readings.write({ captured_at: at, station_id: site.row.id, sensor_code: code, read_at: from, value: rounded(code, value) });
    }
  }
}

/** Every sensor's value at a station in the hour beginning at `hour`. */
function valuesOfHour(context: SampleContext, site: Site, hour: number): Values {
  for (const [start, values] of hoursOf(context, site, zonedDayOf(hour, city.timeZone))) if (start === hour) return values;
  throw new Error(`no hour begins at ${new Date(hour).toISOString()}`);
}
