import { analysisCharts, type Chart, type MapLayer } from '../vocabulary/figure.ts';
import { text, type Text } from '../../core/text.ts';
import { quoteString } from '../../core/db/duckdb.ts';
import { marketTypes, propertyTypes, type Dictionary } from './dictionaries.ts';
import { districtOf, districts } from './districts.ts';

const labelsOf = (dictionary: Dictionary): Record<string, Text> => Object.fromEntries(dictionary.terms.map((term) => [term.value, term.label]));

/**
 * Price per m²: a transaction's gross price over the area of what it sold, for transactions of a
 * single property only (the register gives one price for all the properties of a transaction).
 * The area depends on the property type: the usable area of the units for premises, of the
 * buildings for a building or developed land, the land area for undeveloped land. Premises are
 * what most readers mean by a price per m², so the charts by month, district and market show
 * premises alone; the chart by property type shows each type on its own area.
 */
const facts = `
  WITH areas AS (
    SELECT property_gml_id, property_type_value, parcel_ids[1] AS parcel_id,
      (min_lon + max_lon) / 2 AS lon, (min_lat + max_lat) / 2 AS lat,
      CASE property_type_value
        WHEN 'nieruchomoscLokalowa' THEN list_sum(CAST(json_extract(units, '$[*].usableAreaM2') AS DOUBLE[]))
        WHEN 'nieruchomoscGruntowaNiezabudowana' THEN CAST(land_area_m2 AS DOUBLE)
        ELSE list_sum(CAST(json_extract(buildings, '$[*].usableAreaM2') AS DOUBLE[]))
      END AS area_m2
    FROM rcn_properties)
  SELECT t.transaction_gml_id,
    date_trunc('month', t.document_date)::DATE AS month,
    t.market_type_value AS market_type,
    a.property_type_value AS property_type,
    ${districtOf('a.parcel_id')} AS district,
    a.lon, a.lat,
    CASE WHEN len(t.property_ids) = 1 AND a.area_m2 > 0 THEN CAST(t.gross_price AS DOUBLE) / a.area_m2 END AS price_per_m2
  FROM rcn_transactions t LEFT JOIN areas a ON a.property_gml_id = t.property_ids[1]`;

const transactions = text('Transactions', 'Transakcje');
const premisesPrice = text('Median price per m² of premises, PLN/m²', 'Mediana ceny za m² lokali, zł/m²');

export const charts: readonly Chart[] = analysisCharts({
  name: 'market',
  facts,
  measures: [
    { key: 'transactions', label: transactions, sql: 'count(*)' },
    { key: 'premises-price-per-m2', label: premisesPrice, sql: "round(median(price_per_m2) FILTER (WHERE property_type = 'nieruchomoscLokalowa'), 0)" },
    { key: 'price-per-m2', label: text('Median price per m², PLN/m²', 'Mediana ceny za m², zł/m²'), sql: 'round(median(price_per_m2), 0)' },
  ],
  note: text(
    "Price per m² is a transaction's gross price over the area sold, for transactions of one property only (the register gives one price for all the properties of a transaction): for premises, over the usable area of the units; for a building or developed land, over the usable area of the buildings; for undeveloped land, over the land area. A transaction's district and property type are those of its first property; the district is the TERYT unit of its first parcel.",
    'Cena za m² to cena brutto transakcji podzielona przez zbytą powierzchnię, tylko dla transakcji jednej nieruchomości (rejestr podaje jedną cenę za wszystkie nieruchomości transakcji): dla lokali przez powierzchnię użytkową lokali, dla budynku lub gruntu zabudowanego przez powierzchnię użytkową budynków, dla gruntu niezabudowanego przez powierzchnię gruntu. Dzielnica i rodzaj nieruchomości transakcji to te jej pierwszej nieruchomości; dzielnica to jednostka TERYT jej pierwszej działki.',
  ),
  dimensions: [
    {
      name: 'month',
      title: text('The market month by month', 'Rynek miesiąc po miesiącu'),
      description: text(
        'Transactions per month of their legal-basis document, and the median price per m² of premises sold alone.',
        'Transakcje w miesiącu dokumentu stanowiącego podstawę prawną i mediana ceny za m² lokali sprzedanych pojedynczo.',
      ),
      column: 'month',
      label: text('Month of the document', 'Miesiąc dokumentu'),
      period: 'month',
      through: 'SELECT max(document_date) AS through FROM rcn_transactions',
      measures: ['transactions', 'premises-price-per-m2'],
    },
    {
      name: 'district',
      title: text('By district', 'Według dzielnicy'),
      description: text(
        'Transactions and the median price per m² of premises, by the district of the property sold.',
        'Transakcje i mediana ceny za m² lokali według dzielnicy zbytej nieruchomości.',
      ),
      column: 'district',
      label: text('District', 'Dzielnica'),
      labels: districts,
      measures: ['transactions', 'premises-price-per-m2'],
    },
    {
      name: 'market-type',
      title: text('Primary and secondary market', 'Rynek pierwotny i wtórny'),
      description: text(
        'Transactions and the median price per m² of premises, by market type.',
        'Transakcje i mediana ceny za m² lokali według rodzaju rynku.',
      ),
      column: 'market_type',
      label: text('Market type', 'Rodzaj rynku'),
      labels: labelsOf(marketTypes),
      measures: ['transactions', 'premises-price-per-m2'],
    },
    {
      name: 'property-type',
      title: text('By property type', 'Według rodzaju nieruchomości'),
      description: text(
        'Transactions and the median price per m², by the type of the property sold; each type on its own area (see below).',
        'Transakcje i mediana ceny za m² według rodzaju zbytej nieruchomości; każdy rodzaj na swojej powierzchni (zob. niżej).',
      ),
      column: 'property_type',
      label: text('Property type', 'Rodzaj nieruchomości'),
      labels: labelsOf(propertyTypes),
      measures: ['transactions', 'price-per-m2'],
    },
  ],
});

const districtNames = Object.entries(districts)
  .map(([code, name]) => `(${quoteString(code)}, ${quoteString(name.en)})`)
  .join(', ');

/** Most properties on the map: the latest sold, so that a city's register stays a page one can load. */
const PROPERTIES_SHOWN = 1000;

export const map: readonly MapLayer[] = [
  {
    name: 'properties',
    title: text(
      `Properties sold (the latest ${PROPERTIES_SHOWN.toLocaleString('en-GB')})`,
      `Zbyte nieruchomości (ostatnie ${PROPERTIES_SHOWN.toLocaleString('pl-PL')})`,
    ),
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
    title: text('Median price per m² of premises, by district', 'Mediana ceny za m² lokali według dzielnic'),
    description: text(
      'The figures of the register’s analysis by district: premises sold alone (transactions of one property), gross price over the usable area of the units. ' +
        'District from the TERYT prefix of the first parcel. The register holds no district boundaries: each circle stands at the centre of the premises sold in the district.',
      'Liczby z analizy rejestru według dzielnic: lokale sprzedane pojedynczo (transakcje jednej nieruchomości), cena brutto podzielona przez powierzchnię użytkową lokali. ' +
        'Dzielnica z prefiksu TERYT pierwszej działki. Rejestr nie zawiera granic dzielnic: każde koło stoi w środku lokali sprzedanych w dzielnicy.',
    ),
    // The analysis's own facts and median, so that the map and the charts never disagree: premises
    // without geometry count too (avg skips their NULL lon and lat; a district with none is left off the map).
    sql: `WITH facts AS (${facts}), districts(code, name) AS (VALUES ${districtNames})
          SELECT district AS id, coalesce(any_value(districts.name), district) AS name, round(avg(lon), 6) AS lon, round(avg(lat), 6) AS lat,
                 round(median(price_per_m2), 0) AS value, count(*) AS count
          FROM facts LEFT JOIN districts ON districts.code = facts.district
          WHERE district IS NOT NULL AND property_type = 'nieruchomoscLokalowa' AND price_per_m2 IS NOT NULL
          GROUP BY district ORDER BY district`,
    value: {
      label: text('Median price per m²', 'Mediana ceny za m²'),
      unit: text('PLN/m²', 'zł/m²'),
      count: text('premises sold alone', 'lokale sprzedane pojedynczo'),
    },
  },
];
