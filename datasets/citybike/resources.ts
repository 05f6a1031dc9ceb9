import { z } from 'zod';
import { day, doc, instant, link, named, position, unshown } from '../vocabulary/field.ts';

export const bike = named(
  'Bicycle',
  z.object({
    uri: doc(link(), 'Address of the bicycle.', 'Adres roweru.'),
    number: doc(z.string(), 'Public bicycle number.', 'Publiczny numer roweru.'),
    type: doc(z.string(), 'Assigned type, e.g. standard, electric, tandem, child.', 'Przypisany typ, np. standard, electric, tandem, child.'),
  }),
  'A bicycle of the stored inventory; it carries no location and no operational state.',
  'Rower z przechowywanego spisu; bez położenia i stanu eksploatacyjnego.',
);

export const zone = named(
  'Zone',
  z.object({
    uri: doc(link(), 'Address of the zone.', 'Adres strefy.'),
    id: doc(z.string(), 'UUID-shaped identifier.', 'Identyfikator w postaci UUID.'),
    name: doc(z.string(), 'Name of the zone.', 'Nazwa strefy.'),
    activeFrom: doc(day(), 'First day in service, YYYY-MM-DD.', 'Pierwszy dzień działania, RRRR-MM-DD.'),
    activeTo: doc(day().nullable(), 'Last day in service, YYYY-MM-DD; null while in service.', 'Ostatni dzień działania, RRRR-MM-DD; null, dopóki działa.'),
    temporary: doc(z.boolean(), 'Set up for a limited time (an event, a season).', 'Uruchomiona na ograniczony czas (wydarzenie, sezon).'),
    location: position('Where the zone is.', 'Położenie strefy.'),
  }),
  'A stored bike-share zone.',
  'Przechowywana strefa roweru miejskiego.',
);

const stat = (en: string, pl: string) => doc(z.number(), en, pl);

export const season = named(
  'Season',
  z.object({
    uri: doc(link(), 'Address of the season.', 'Adres sezonu.'),
    year: doc(z.number().int(), 'Year of the season.', 'Rok sezonu.'),
    activeFrom: doc(day(), 'First day of the season, YYYY-MM-DD.', 'Pierwszy dzień sezonu, RRRR-MM-DD.'),
    activeTo: doc(
      day(),
      'Last day of the season (so far, for the running one), YYYY-MM-DD.',
      'Ostatni dzień sezonu (dotychczasowy dla trwającego), RRRR-MM-DD.',
    ),
    days: doc(z.number().int(), 'Days from activeFrom to activeTo, both counted.', 'Dni od activeFrom do activeTo, obie daty wliczone.'),
    ridesCount: doc(z.number().int(), 'Completed, non-service rides in the season.', 'Zakończone przejazdy (bez serwisowych) w sezonie.'),
    bikesCount: doc(z.number().int(), 'Bicycles in service during the season.', 'Rowery w użyciu w sezonie.'),
    zonesCount: doc(z.number().int(), 'Zones in service at some time during the season.', 'Strefy działające w którymś momencie sezonu.'),
    totalDistanceKm: stat('Sum of ride distances, km.', 'Suma długości przejazdów, km.'),
    totalDurationMin: stat('Sum of ride durations, minutes.', 'Suma czasów przejazdów, minuty.'),
    ridesPerDay: stat('ridesCount ÷ days.', 'ridesCount ÷ days.'),
    ridesPerBikePerDay: stat('ridesCount ÷ bikesCount ÷ days.', 'ridesCount ÷ bikesCount ÷ days.'),
    ridesPerStationPerDay: stat('ridesCount ÷ zonesCount ÷ days.', 'ridesCount ÷ zonesCount ÷ days.'),
    distancePerBikePerDayKm: stat('totalDistanceKm ÷ bikesCount ÷ days.', 'totalDistanceKm ÷ bikesCount ÷ days.'),
    durationPerBikePerDayMin: stat('totalDurationMin ÷ bikesCount ÷ days.', 'totalDurationMin ÷ bikesCount ÷ days.'),
  }),
  'Statistics of one yearly season.',
  'Statystyki jednego rocznego sezonu.',
);

export const ride = named(
  'Ride',
  z.object({
    seasonUri: doc(link(), 'Address of the season resource.', 'Adres zasobu sezonu.'),
    seasonYear: doc(z.number().int(), 'Year of the season of the ride.', 'Rok sezonu przejazdu.'),
    startedZoneUri: doc(link(), 'Address of the zone where the ride started.', 'Adres strefy, w której przejazd się zaczął.'),
    startedZoneId: doc(z.string(), 'Identifier of that zone.', 'Identyfikator tej strefy.'),
    finishedZoneUri: doc(
      link().nullable(),
      'Address of the zone where the ride ended; null when it ended outside any zone.',
      'Adres strefy, w której przejazd się zakończył; null, gdy poza strefami.',
    ),
    finishedZoneId: doc(z.string().nullable(), 'Identifier of that zone, or null.', 'Identyfikator tej strefy albo null.'),
    startedAt: doc(instant(), 'Start, ISO 8601 with the offset of the requested timezone.', 'Początek, ISO 8601 z przesunięciem żądanej strefy czasowej.'),
    finishedAt: doc(instant(), 'End, ISO 8601 with the offset of the requested timezone.', 'Koniec, ISO 8601 z przesunięciem żądanej strefy czasowej.'),
    distance: doc(
      z.number().nonnegative(),
      'Distance ridden. The spec does not give the unit; the sample upstream uses kilometres.',
      'Przebyty dystans. Specyfikacja nie podaje jednostki; przykładowe źródło używa kilometrów.',
    ),
    averageSpeed: doc(
      z.number().nonnegative(),
      'Average speed. The spec does not give the unit; the sample upstream uses km/h (distance ÷ duration).',
      'Średnia prędkość. Specyfikacja nie podaje jednostki; przykładowe źródło używa km/h (dystans ÷ czas).',
    ),
    rating: doc(
      z.number().int().optional(),
      'Rating given by the rider; absent when none was given. The sample upstream uses 1 to 5.',
      'Ocena przejazdu; brak pola, gdy jej nie wystawiono. Przykładowe źródło używa skali 1–5.',
    ),
  }),
  'An anonymised, completed, non-service ride: no bicycle identifier, trace or fare.',
  'Zanonimizowany, zakończony, nieserwisowy przejazd: bez identyfikatora roweru, śladu i opłaty.',
);

export const liveBike = named(
  'LiveBicycle',
  z.object({
    uri: doc(link(), 'Address of the bicycle.', 'Adres roweru.'),
    number: doc(z.string(), 'Public bicycle number.', 'Publiczny numer roweru.'),
    available: doc(z.boolean(), 'Can be rented now.', 'Można go teraz wypożyczyć.'),
    type: doc(z.string(), 'Assigned type.', 'Przypisany typ.'),
    location: position('Where the bicycle is now.', 'Gdzie rower jest teraz.'),
  }),
  'A public bicycle on the live map.',
  'Publiczny rower na mapie na żywo.',
);

export const liveZone = named(
  'LiveZone',
  z.object({
    name: doc(z.string(), 'Name of the zone.', 'Nazwa strefy.'),
    type: doc(z.string(), 'Zone kind; the sample upstream uses zone or temporary.', 'Rodzaj strefy; przykładowe źródło używa zone lub temporary.'),
    center: position('Centre of the zone.', 'Środek strefy.'),
    area: doc(
      z.array(unshown()),
      'Outline of the zone. Element shape not shown by the spec; the sample upstream sends [longitude, latitude] pairs of a closed ring.',
      'Obrys strefy. Specyfikacja nie pokazuje kształtu elementów; przykładowe źródło przesyła pary [długość, szerokość] zamkniętego pierścienia.',
    ),
  }),
  'A public zone on the live map.',
  'Publiczna strefa na mapie na żywo.',
);

export type Bike = z.infer<typeof bike>;
export type Zone = z.infer<typeof zone>;
export type Season = z.infer<typeof season>;
export type Ride = z.infer<typeof ride>;
export type LiveBike = z.infer<typeof liveBike>;
export type LiveZone = z.infer<typeof liveZone>;
