import type { RowOf } from '../../core/table.ts';
import type { ParseContext } from '../vocabulary/parse.ts';
import { lookupOf } from './property-lookup.ts';
import type { Property, Transaction } from './resources.ts';
import type { dictionaries, properties, transactions } from './tables.ts';

/** How upstream register records become rows: the inverses of render.ts. Ids, never links, are keys. */

export const parseTransaction = (t: Transaction): RowOf<typeof transactions.columns> => ({
  transaction_gml_id: t.transactionGmlId,
  transaction_identifier: t.transactionIdentifier,
  id_rcn_namespace: t.idRCN.namespace,
  id_rcn_local_id: t.idRCN.localId,
  id_rcn_version_id: t.idRCN.versionId,
  document_id: t.legalBasisDocument.id,
  document_identifier: t.legalBasisDocument.identifier,
  document_date: t.legalBasisDocument.date,
  document_creator: t.legalBasisDocument.creator,
  transaction_type_code: t.transactionType.code,
  transaction_type_value: t.transactionType.value,
  market_type_code: t.marketType.code,
  market_type_value: t.marketType.value,
  seller_party_type_code: t.sellerPartyType.code,
  seller_party_type_value: t.sellerPartyType.value,
  buyer_party_type_code: t.buyerPartyType.code,
  buyer_party_type_value: t.buyerPartyType.value,
  gross_price: t.grossPrice,
  vat_amount: t.vatAmount,
  currency: t.currency,
  property_ids: t.properties.map((p) => p.id),
});

export function parseProperty(p: Property, context: ParseContext): RowOf<typeof properties.columns> {
  const details = { parcels: context.json(p.parcels), buildings: context.json(p.buildings), units: context.json(p.units) };
  return {
    property_gml_id: p.propertyGmlId,
    property_type_code: p.propertyType.code,
    property_type_value: p.propertyType.value,
    property_right_type_code: p.propertyRightType.code,
    property_right_type_value: p.propertyRightType.value,
    property_right_share: p.propertyRightShare,
    land_area_m2: p.landAreaM2,
    gross_price: p.grossPrice,
    currency: p.currency,
    transaction_ids: p.transactions.map((t) => t.id),
    ...details,
    ...lookupOf(details, context.unread),
  };
}

export const parseDictionary = (payload: unknown, context: ParseContext): RowOf<typeof dictionaries.columns> => ({
  path: context.path,
  payload: context.json(payload),
});
