import { code, column, derived, nullable } from '../vocabulary/column.ts';
import { defineTable, listPosition } from '../vocabulary/table.ts';
import { text } from '../../core/text.ts';
import { property, transaction } from './resources.ts';

const t = transaction.shape;
const p = property.shape;

const termColumns = <N extends string>(name: N, en: string, pl: string) =>
  ({
    [`${name}_code`]: code(column.smallint(text(`${en}: code.`, `${pl}: kod.`))),
    [`${name}_value`]: column.varchar(text(`${en}: canonical value.`, `${pl}: wartość kanoniczna.`)),
  }) as { [K in `${N}_code`]: ReturnType<typeof column.smallint> } & { [K in `${N}_value`]: ReturnType<typeof column.varchar> };

export const transactions = defineTable({
  doc: text('Register transactions, one row per transaction.', 'Transakcje rejestru, jeden wiersz na transakcję.'),
  columns: {
    transaction_gml_id: column.varchar(t.transactionGmlId),
    transaction_identifier: column.varchar(t.transactionIdentifier),
    id_rcn_namespace: column.varchar(text('idRCN.namespace: namespace of the register.', 'idRCN.namespace: przestrzeń nazw rejestru.')),
    id_rcn_local_id: column.varchar(text('idRCN.localId: local identifier.', 'idRCN.localId: identyfikator lokalny.')),
    id_rcn_version_id: column.varchar(text('idRCN.versionId: version timestamp, as sent.', 'idRCN.versionId: znacznik wersji, w postaci przesłanej.')),
    document_id: column.varchar(text('legalBasisDocument.id.', 'legalBasisDocument.id.')),
    document_identifier: column.varchar(
      text('legalBasisDocument.identifier: designation of the document.', 'legalBasisDocument.identifier: oznaczenie dokumentu.'),
    ),
    document_date: column.day(
      text(
        'legalBasisDocument.date: date of the document; the documentDateFrom/To filters use it.',
        'legalBasisDocument.date: data dokumentu; używają jej filtry documentDateFrom/To.',
      ),
    ),
    document_creator: column.varchar(text('legalBasisDocument.creator.', 'legalBasisDocument.creator.')),
    ...termColumns('transaction_type', 'Transaction type', 'Rodzaj transakcji'),
    ...termColumns('market_type', 'Market type', 'Rodzaj rynku'),
    ...termColumns('seller_party_type', 'Seller party type', 'Rodzaj strony sprzedającej'),
    ...termColumns('buyer_party_type', 'Buyer party type', 'Rodzaj strony kupującej'),
    gross_price: column.decimal(15, 2, t.grossPrice),
    vat_amount: nullable(column.decimal(15, 2, t.vatAmount)),
    currency: column.varchar(t.currency),
    property_ids: column.varcharList(text('Identifiers of the properties sold (propertyGmlId).', 'Identyfikatory zbytych nieruchomości (propertyGmlId).')),
    list_position: listPosition,
  },
  key: ['transaction_gml_id'],
  partitionBy: [{ name: 'year', column: 'document_date', part: 'year' }],
  sortBy: ['list_position', 'document_date', 'transaction_gml_id'],
  timeColumn: 'document_date',
  // A register: each pull's new and revised records are listed, not counted by day.
  changes: 'records',
});

export const properties = defineTable({
  doc: text(
    'Register properties with their parcels, buildings and units, one row per property.',
    'Nieruchomości rejestru z działkami, budynkami i lokalami, jeden wiersz na nieruchomość.',
  ),
  columns: {
    property_gml_id: column.varchar(p.propertyGmlId),
    ...termColumns('property_type', 'Property type', 'Rodzaj nieruchomości'),
    ...termColumns('property_right_type', 'Property right type', 'Rodzaj prawa do nieruchomości'),
    property_right_share: column.varchar(p.propertyRightShare),
    land_area_m2: column.decimal(15, 4, p.landAreaM2),
    gross_price: column.decimal(15, 2, p.grossPrice),
    currency: column.varchar(p.currency),
    transaction_ids: column.varcharList(text('Identifiers of the transactions (transactionGmlId).', 'Identyfikatory transakcji (transactionGmlId).')),
    parcels: column.json(p.parcels),
    buildings: column.json(p.buildings),
    units: column.json(p.units),
    parcel_ids: column.varcharList(
      text('Parcel identifiers, from parcels; the parcelIdentifier filter uses them.', 'Identyfikatory działek z parcels; używa ich filtr parcelIdentifier.'),
    ),
    address_parts: column.varcharList(
      text(
        'Localities, streets and building numbers of all addresses; the address filter uses them.',
        'Miejscowości, ulice i numery porządkowe wszystkich adresów; używa ich filtr address.',
      ),
    ),
    min_lon: nullable(
      column.double(text('West edge of the geometry of parcels, buildings and units.', 'Zachodnia krawędź geometrii działek, budynków i lokali.')),
    ),
    min_lat: nullable(column.double(text('South edge of that geometry.', 'Południowa krawędź tej geometrii.'))),
    max_lon: nullable(column.double(text('East edge of that geometry.', 'Wschodnia krawędź tej geometrii.'))),
    max_lat: nullable(column.double(text('North edge of that geometry.', 'Północna krawędź tej geometrii.'))),
    outlines: column.rings(
      text(
        'Outlines of that geometry, [lon, lat, lon, lat, …] each: outer rings of polygons, lines, and points as one position; the bbox filter intersects them.',
        'Obrysy tej geometrii, każdy jako [dł., szer., dł., szer., …]: zewnętrzne pierścienie wielokątów, linie i punkty jako jedno położenie; przecina je filtr bbox.',
      ),
    ),
    list_position: listPosition,
    first_document_date: derived(
      column.day(
        text(
          'Date of the legal-basis document of the earliest transaction listing the property; worked out from the transactions, it orders the property list.',
          'Data dokumentu podstawy prawnej najwcześniejszej transakcji obejmującej nieruchomość; wyliczana z transakcji, porządkuje listę nieruchomości.',
        ),
      ),
      {
        sql: `SELECT property_gml_id, min(document_date) AS value
              FROM (SELECT unnest(property_ids) AS property_gml_id, document_date FROM rcn_transactions)
              GROUP BY property_gml_id`,
      },
    ),
  },
  key: ['property_gml_id'],
  // As the upstream lists them; where that is not known, by first sale rather than by id (random):
  // new properties join the end of the list (a deed is registered within weeks of its date), so
  // earlier pages keep their rows from day to day, in a rebuilt static tree and in the caches in
  // front of it.
  sortBy: ['list_position', 'first_document_date', 'property_gml_id'],
});

export const dictionaries = defineTable({
  doc: text(
    'Payloads of the dictionary endpoints as sent, keyed by path (e.g. /dictionaries/land-uses); links are relative to {base_url}.',
    'Odpowiedzi punktów słownikowych w postaci przesłanej, według ścieżki (np. /dictionaries/land-uses); linki są względne wobec {base_url}.',
  ),
  columns: {
    path: column.varchar(
      text(
        'Endpoint path relative to the data set: /dictionaries or /dictionaries/<name>.',
        'Ścieżka punktu względem zbioru: /dictionaries lub /dictionaries/<nazwa>.',
      ),
    ),
    payload: column.json(text('The response body.', 'Treść odpowiedzi.')),
  },
  key: ['path'],
  sortBy: ['path'],
});
