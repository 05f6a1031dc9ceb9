import { z } from 'zod';
import { doc, instant, link, named, position } from '../vocabulary/field.ts';

export const counter = named(
  'Counter',
  z.object({
    uri: doc(link(), 'Address of the counter.', 'Adres licznika.'),
    id: doc(z.string(), 'Counter identifier, used as counterId in paths.', 'Identyfikator licznika, używany jako counterId w ścieżkach.'),
    name: doc(z.string(), 'Name of the counting site.', 'Nazwa punktu pomiarowego.'),
    provider: doc(z.string(), 'Who runs the counter.', 'Operator licznika.'),
    externalId: doc(z.string().nullable(), 'Identifier in the provider’s system, if any.', 'Identyfikator w systemie operatora, jeśli jest.'),
    location: position('Where the counter is, WGS 84.', 'Położenie licznika, WGS 84.'),
    activeFrom: doc(instant(), 'Start of operation, ISO 8601 with offset.', 'Początek działania, ISO 8601 z przesunięciem.'),
    activeTo: doc(
      instant().nullable(),
      'End of operation, ISO 8601 with offset; null while counting.',
      'Koniec działania, ISO 8601 z przesunięciem; null, dopóki liczy.',
    ),
    lastSynchronizedAt: doc(
      instant(),
      'Last time data arrived from the counter, ISO 8601 with offset.',
      'Ostatnie pobranie danych z licznika, ISO 8601 z przesunięciem.',
    ),
  }),
  'A bicycle traffic counter with its location and operating range.',
  'Licznik ruchu rowerowego z położeniem i okresem działania.',
);

export const counterReading = named(
  'CounterReading',
  z.object({
    readAt: doc(
      instant(),
      'Start of the hour counted, ISO 8601 with the offset of the requested timezone.',
      'Początek zliczonej godziny, ISO 8601 z przesunięciem żądanej strefy czasowej.',
    ),
    value: doc(z.number().int().nonnegative(), 'Bicycles counted in that hour.', 'Liczba rowerów w tej godzinie.'),
  }),
  'One hourly count.',
  'Jedno godzinowe zliczenie.',
);

export const counterReadings = named(
  'CounterReadings',
  z.object({
    uri: doc(link(), 'Address of the request (path and from/to query).', 'Adres żądania (ścieżka i zapytanie from/to).'),
    counterUri: doc(link(), 'Address of the counter.', 'Adres licznika.'),
    counterId: doc(z.string(), 'Counter identifier.', 'Identyfikator licznika.'),
    readings: doc(
      z.array(counterReading),
      'Hourly readings in the range, oldest first; hours without data are absent.',
      'Godzinowe odczyty z zakresu, od najstarszego; godzin bez danych brak.',
    ),
  }),
  'Hourly readings of one counter.',
  'Godzinowe odczyty jednego licznika.',
);

export type Counter = z.infer<typeof counter>;
export type CounterReading = z.infer<typeof counterReading>;
