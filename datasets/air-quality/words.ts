import { text, type Text } from '../../core/text.ts';

/**
 * The upstream names its sensors and their legend bands in Polish only. The words known here are
 * shown translated on English pages; any other is shown as the upstream gives it, marked as Polish.
 * Pollutant names (PM10, NO₂, …) are the same in both languages: listed as they are, so they are
 * not marked as Polish.
 */
const same = (name: string) => [name, text(name, name)] as const;

export const sensorWords: Readonly<Record<string, Text>> = {
  ...Object.fromEntries(['PM10', 'PM2.5', 'NO₂', 'O₃', 'SO₂', 'CO', 'C₆H₆'].map(same)),
  // Sensors.
  Temperatura: text('Temperature', 'Temperatura'),
  Wilgotność: text('Humidity', 'Wilgotność'),
  Ciśnienie: text('Pressure', 'Ciśnienie'),
  // The bands of the Polish air quality index (Polski Indeks Jakości Powietrza), as GIOŚ names them in English.
  'Bardzo dobry': text('Very good', 'Bardzo dobry'),
  Dobry: text('Good', 'Dobry'),
  Umiarkowany: text('Moderate', 'Umiarkowany'),
  Dostateczny: text('Sufficient', 'Dostateczny'),
  Zły: text('Bad', 'Zły'),
  'Bardzo zły': text('Very bad', 'Bardzo zły'),
  // Weather bands.
  Mróz: text('Frost', 'Mróz'),
  Zimno: text('Cold', 'Zimno'),
  Chłodno: text('Cool', 'Chłodno'),
  Umiarkowanie: text('Mild', 'Umiarkowanie'),
  Ciepło: text('Warm', 'Ciepło'),
  Upał: text('Heat', 'Upał'),
  Sucho: text('Dry', 'Sucho'),
  Komfortowo: text('Comfortable', 'Komfortowo'),
  Wilgotno: text('Humid', 'Wilgotno'),
  Niskie: text('Low', 'Niskie'),
  Normalne: text('Normal', 'Normalne'),
  Wysokie: text('High', 'Wysokie'),
};
