import type { Chart, MapLayer } from '../vocabulary/figure.ts';
import { text } from '../../core/text.ts';

export const charts: readonly Chart[] = [
  {
    name: 'monthly-market',
    title: text('The market month by month', 'Rynek miesiąc po miesiącu'),
    description: text(
      'Transactions per month of their legal-basis document, and their median gross price, one panel each.',
      'Transakcje w miesiącu dokumentu stanowiącego podstawę prawną i ich mediana ceny brutto, po jednym panelu.',
    ),
    sql: `SELECT panel, x, y FROM (
            SELECT 'transactions' AS panel, 1 AS o, date_trunc('month', document_date)::DATE AS x, count(*)::DOUBLE AS y FROM rcn_transactions GROUP BY ALL
            UNION ALL
            SELECT 'median-price', 2, date_trunc('month', document_date)::DATE, median(gross_price)::DOUBLE FROM rcn_transactions GROUP BY ALL)
          ORDER BY o, x`,
    kind: 'line',
    x: { label: text('Month', 'Miesiąc'), time: true },
    y: { label: text('Value', 'Wartość') },
    panels: {
      transactions: text('Transactions', 'Transakcje'),
      'median-price': text('Median gross price, PLN', 'Mediana ceny brutto, zł'),
    },
  },
];

/**
 * Warsaw's districts by the TERYT code of their cadastral unit, which begins every parcel, building
 * and unit identifier (`146510_8.0001.123/4` lies in Śródmieście). Units of other cities are shown
 * by their code.
 */
const DISTRICTS: Readonly<Record<string, string>> = {
  '146502_8': 'Bemowo', '146503_8': 'Białołęka', '146504_8': 'Bielany', '146505_8': 'Mokotów', '146506_8': 'Ochota',
  '146507_8': 'Praga-Południe', '146508_8': 'Praga-Północ', '146509_8': 'Rembertów', '146510_8': 'Śródmieście',
  '146511_8': 'Targówek', '146512_8': 'Ursus', '146513_8': 'Ursynów', '146514_8': 'Wawer', '146515_8': 'Wesoła',
  '146516_8': 'Wilanów', '146517_8': 'Włochy', '146518_8': 'Wola', '146519_8': 'Żoliborz',
};
const districtNames = Object.entries(DISTRICTS).map(([code, name]) => `('${code}', '${name}')`).join(', ');

/** Most properties on the map: the latest sold, so that a city's register stays a page one can load. */
const PROPERTIES_SHOWN = 1000;

export const map: readonly MapLayer[] = [
  {
    name: 'properties',
    title: text(`Properties sold (the latest ${PROPERTIES_SHOWN.toLocaleString('en-GB')})`, `Zbyte nieruchomości (ostatnie ${PROPERTIES_SHOWN.toLocaleString('pl-PL')})`),
    description: text(
      'Each at the centre of the extent of its parcels, buildings and units, named by its first address.',
      'Każda w środku zasięgu swoich działek, budynków i lokali, nazwana pierwszym adresem.',
    ),
    sql: `SELECT property_gml_id AS id, coalesce(nullif(concat_ws(' ', address->>'street', address->>'number'), ''), address->>'locality', property_gml_id) AS name,
                 (min_lon + max_lon) / 2 AS lon, (min_lat + max_lat) / 2 AS lat
          FROM (SELECT *, coalesce(units->'$[0].address', buildings->'$[0].address', parcels->'$[0].address') AS address FROM rcn_properties WHERE min_lon IS NOT NULL)
          ORDER BY first_document_date DESC, property_gml_id LIMIT ${PROPERTIES_SHOWN}`,
  },
  {
    name: 'district-prices',
    title: text('Median price per m² of flats, by district', 'Mediana ceny za m² lokali według dzielnic'),
    description: text(
      'Units (flats and premises) sold whole on the free market: gross price of the property over the usable area of its units, within 1,000–50,000 PLN/m² and 15–400 m². ' +
        'District from the TERYT prefix of the cadastral identifiers. The register holds no district boundaries: each circle stands at the centre of the district’s properties.',
      'Lokale zbyte w całości na wolnym rynku: cena brutto nieruchomości podzielona przez powierzchnię użytkową jej lokali, w granicach 1000–50 000 zł/m² i 15–400 m². ' +
        'Dzielnica z prefiksu TERYT identyfikatorów ewidencyjnych. Rejestr nie zawiera granic dzielnic: każde koło stoi w środku nieruchomości dzielnicy.',
    ),
    sql: `WITH districts(code, name) AS (VALUES ${districtNames}),
          sold AS (
            SELECT regexp_extract(coalesce(parcel_ids[1], units->>'$[0].id'), '^(\\d{6}_\\d)', 1) AS code,
                   (min_lon + max_lon) / 2 AS lon, (min_lat + max_lat) / 2 AS lat,
                   CAST(gross_price AS DOUBLE) / list_sum(CAST(json_extract(units, '$[*].usableAreaM2') AS DOUBLE[])) AS per_m2,
                   list_sum(CAST(json_extract(units, '$[*].usableAreaM2') AS DOUBLE[])) AS area
            FROM rcn_properties
            WHERE property_type_value = 'nieruchomoscLokalowa' AND property_right_share = '1/1' AND min_lon IS NOT NULL
              AND property_gml_id IN (SELECT unnest(property_ids) FROM rcn_transactions WHERE transaction_type_value = 'wolnyRynek'))
          SELECT code AS id, coalesce(any_value(districts.name), code) AS name, avg(lon) AS lon, avg(lat) AS lat, median(per_m2) AS value, count(*) AS count
          FROM sold LEFT JOIN districts USING (code)
          WHERE code <> '' AND area BETWEEN 15 AND 400 AND per_m2 BETWEEN 1000 AND 50000
          GROUP BY code ORDER BY code`,
    value: { label: text('Median price per m²', 'Mediana ceny za m²'), unit: text('PLN/m²', 'zł/m²'), count: text('units sold', 'zbyte lokale') },
  },
];
