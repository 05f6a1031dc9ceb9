import { z } from 'zod';
import { doc, hexColour, instant, link, named, position, unshown } from '../vocabulary/field.ts';

export const station = named(
  'Station',
  z.object({
    uri: doc(link(), 'Address of the station.', 'Adres stacji.'),
    id: doc(z.string(), 'Station identifier.', 'Identyfikator stacji.'),
    provider: doc(z.string(), 'Who runs the station, e.g. GIOŚ or a low-cost sensor network.', 'Operator stacji, np. GIOŚ lub sieć czujników niskokosztowych.'),
    externalId: doc(
      z.string(),
      'Identifier in the external measurement system (the deviceId of live/{deviceId}).',
      'Identyfikator w zewnętrznym systemie pomiarowym (deviceId w live/{deviceId}).',
    ),
    name: doc(z.string(), 'Name of the station.', 'Nazwa stacji.'),
    address: doc(z.string(), 'Street address.', 'Adres.'),
    city: doc(z.string(), 'City.', 'Miasto.'),
    source: doc(z.string(), 'Where the readings come from.', 'Źródło odczytów.'),
    location: position('Where the station is.', 'Położenie stacji.'),
    historyEnabled: doc(z.boolean(), 'Whether hourly history is kept for the station.', 'Czy dla stacji przechowywana jest historia godzinowa.'),
  }),
  'An active, publicly available measuring station.',
  'Aktywna, publicznie dostępna stacja pomiarowa.',
);

export const legendBand = z.object({
  from: doc(z.number(), 'Lower bound of the band.', 'Dolna granica przedziału.'),
  to: doc(z.number(), 'Upper bound of the band.', 'Górna granica przedziału.'),
  color: doc(hexColour(), 'Colour, a hex colour (#RGB, #RGBA, #RRGGBB or #RRGGBBAA).', 'Kolor szesnastkowy (#RGB, #RGBA, #RRGGBB lub #RRGGBBAA).'),
  label: doc(z.string(), 'Name of the band.', 'Nazwa przedziału.'),
});

export const sensor = named(
  'Sensor',
  z.object({
    uri: doc(link(), 'Address of the sensor definition.', 'Adres definicji czujnika.'),
    code: doc(z.string(), 'Sensor code, used as sensorCode in paths.', 'Kod czujnika, używany jako sensorCode w ścieżkach.'),
    label: doc(z.string(), 'Label shown with readings.', 'Etykieta wyświetlana z odczytami.'),
    unit: doc(z.string(), 'Unit of the readings.', 'Jednostka odczytów.'),
    icon: doc(z.string(), 'Name of the icon shown with readings.', 'Nazwa ikony wyświetlanej z odczytami.'),
    sortOrder: doc(z.number().int(), 'Position among the sensors.', 'Pozycja wśród czujników.'),
    groupCode: doc(z.string(), 'Group of sensors (particulates, gases, weather).', 'Grupa czujników (pyły, gazy, pogoda).'),
    groupOrder: doc(z.number().int(), 'Position of the group.', 'Pozycja grupy.'),
    minValue: doc(z.number(), 'Lower end of the display range.', 'Dolny kraniec zakresu wyświetlania.'),
    maxValue: doc(z.number(), 'Upper end of the display range.', 'Górny kraniec zakresu wyświetlania.'),
    fadeStartMinutes: doc(z.number().int(), 'Minutes after which a reading starts to look stale.', 'Liczba minut, po której odczyt zaczyna być nieaktualny.'),
    maxAgeMinutes: doc(z.number().int(), 'Minutes after which a reading is no longer shown.', 'Liczba minut, po której odczyt przestaje być wyświetlany.'),
    legend: doc(z.array(legendBand), 'Value bands with colours and names.', 'Przedziały wartości z kolorami i nazwami.'),
  }),
  'A sensor definition: unit, labels and display range.',
  'Definicja czujnika: jednostka, etykiety i zakres wyświetlania.',
);

export const historyReading = named(
  'Reading',
  z.object({
    readAt: doc(
      instant(),
      'Start of the hour measured, ISO 8601 with the offset of the requested timezone.',
      'Początek mierzonej godziny, ISO 8601 z przesunięciem żądanej strefy czasowej.',
    ),
    value: doc(z.number(), 'Measured value, in the sensor’s unit.', 'Zmierzona wartość w jednostce czujnika.'),
  }),
  'One reading.',
  'Jeden odczyt.',
);

export const liveReading = named(
  'LiveReading',
  z.object({
    readAt: doc(instant(), 'When the value was measured, ISO 8601 with offset.', 'Czas pomiaru, ISO 8601 z przesunięciem.'),
    value: doc(z.number(), 'Measured value, in the sensor’s unit.', 'Zmierzona wartość w jednostce czujnika.'),
    sensorUri: doc(link(), 'Address of the sensor definition.', 'Adres definicji czujnika.'),
    sensorCode: doc(z.string(), 'Sensor code.', 'Kod czujnika.'),
  }),
  'A latest reading, with its sensor.',
  'Najnowszy odczyt wraz z czujnikiem.',
);

export const liveStation = named(
  'LiveStation',
  z.object({
    uri: doc(link(), 'Address of the station.', 'Adres stacji.'),
    stationId: doc(z.string(), 'Station identifier.', 'Identyfikator stacji.'),
    readings: doc(z.array(liveReading), 'Latest readings.', 'Najnowsze odczyty.'),
    // Any JSON value, null included: nothing is left for `.nullable()` to add (OpenAPI tools flag an anyOf with an empty schema).
    error: doc(
      unshown(),
      'Null when the station’s readings were obtained; otherwise what went wrong, in a shape the spec does not show (the sample upstream sends { code, message }).',
      'Null, gdy odczyty stacji pobrano; w przeciwnym razie opis błędu w kształcie, którego specyfikacja nie pokazuje (przykładowe źródło przesyła { code, message }).',
    ),
  }),
  'Latest readings of one station.',
  'Najnowsze odczyty jednej stacji.',
);

export type Station = z.infer<typeof station>;
export type Sensor = z.infer<typeof sensor>;
export type HistoryReading = z.infer<typeof historyReading>;
export type LiveReading = z.infer<typeof liveReading>;
export type LiveStation = z.infer<typeof liveStation>;
