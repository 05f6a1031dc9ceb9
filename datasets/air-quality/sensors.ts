/**
 * The sample's sensor definitions. Pollutant legends use the bands of the Polish air quality
 * index (Polski Indeks Jakości Powietrza) as powietrze.gios.gov.pl implements them, with the GIOŚ
 * map colours; CO is in µg/m³ as the GIOŚ API reports it. Weather legends are odsnap's own.
 */

const indexColours = ['#57B108', '#B0DD10', '#FFD911', '#E58100', '#E50000', '#990000'];
const indexLabels = ['Bardzo dobry', 'Dobry', 'Umiarkowany', 'Dostateczny', 'Zły', 'Bardzo zły'];

/** Bands from the upper limits of the five lower levels; the sixth runs to `top`. */
const indexLegend = (limits: readonly number[], top: number) =>
  [...limits, top].map((to, i) => ({ from: i === 0 ? 0 : limits[i - 1]!, to, color: indexColours[i]!, label: indexLabels[i]! }));

const bands = (edges: readonly number[], colours: readonly string[], labels: readonly string[]) =>
  labels.map((label, i) => ({ from: edges[i]!, to: edges[i + 1]!, color: colours[i]!, label }));

export interface SensorDefinition {
  readonly code: string;
  readonly label: string;
  readonly unit: string;
  readonly icon: string;
  readonly sortOrder: number;
  readonly groupCode: string;
  readonly groupOrder: number;
  readonly minValue: number;
  readonly maxValue: number;
  readonly fadeStartMinutes: number;
  readonly maxAgeMinutes: number;
  readonly legend: readonly { from: number; to: number; color: string; label: string }[];
}

const pollutant = (
  code: string,
  label: string,
  sortOrder: number,
  groupCode: string,
  maxValue: number,
  limits: readonly number[],
  top: number,
): SensorDefinition => ({
  code,
  label,
  unit: 'µg/m³',
  icon: groupCode === 'pm' ? 'particles' : 'molecule',
  sortOrder,
  groupCode,
  groupOrder: groupCode === 'pm' ? 1 : 2,
  minValue: 0,
  maxValue,
  fadeStartMinutes: 90,
  maxAgeMinutes: 180,
  legend: indexLegend(limits, top),
});

const weather = (
  code: string,
  label: string,
  unit: string,
  icon: string,
  sortOrder: number,
  minValue: number,
  maxValue: number,
  legend: SensorDefinition['legend'],
): SensorDefinition => ({
  code,
  label,
  unit,
  icon,
  sortOrder,
  groupCode: 'weather',
  groupOrder: 3,
  minValue,
  maxValue,
  fadeStartMinutes: 60,
  maxAgeMinutes: 120,
  legend,
});

export const sensorDefinitions: readonly SensorDefinition[] = [
  pollutant('PM10', 'PM10', 1, 'pm', 200, [20, 50, 80, 110, 150], 1000),
  pollutant('PM25', 'PM2.5', 2, 'pm', 150, [13, 35, 55, 75, 110], 1000),
  pollutant('NO2', 'NO₂', 3, 'gases', 250, [40, 100, 150, 230, 400], 2000),
  pollutant('O3', 'O₃', 4, 'gases', 250, [70, 120, 150, 180, 240], 1000),
  pollutant('SO2', 'SO₂', 5, 'gases', 150, [50, 100, 200, 350, 500], 2000),
  pollutant('CO', 'CO', 6, 'gases', 5000, [3000, 7000, 11000, 15000, 21000], 50000),
  pollutant('C6H6', 'C₆H₆', 7, 'gases', 20, [6, 11, 16, 21, 51], 200),
  weather(
    'TEMP',
    'Temperatura',
    '°C',
    'thermometer',
    8,
    -25,
    40,
    bands(
      [-50, -10, 0, 10, 20, 30, 60],
      ['#3F51B5', '#2196F3', '#80DEEA', '#A5D6A7', '#FFCC80', '#FF7043'],
      ['Mróz', 'Zimno', 'Chłodno', 'Umiarkowanie', 'Ciepło', 'Upał'],
    ),
  ),
  weather('HUMIDITY', 'Wilgotność', '%', 'droplet', 9, 0, 100, bands([0, 30, 60, 100], ['#FFE082', '#A5D6A7', '#64B5F6'], ['Sucho', 'Komfortowo', 'Wilgotno'])),
  weather(
    'PRESSURE',
    'Ciśnienie',
    'hPa',
    'gauge',
    10,
    970,
    1050,
    bands([900, 1000, 1025, 1100], ['#90CAF9', '#A5D6A7', '#FFCC80'], ['Niskie', 'Normalne', 'Wysokie']),
  ),
];
