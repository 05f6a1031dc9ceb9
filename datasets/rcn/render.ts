import type { RowOf } from '../../core/table.ts';
import { apiPrefix } from '../vocabulary/dataset.ts';
import { resolveLinks, type RenderContext } from '../vocabulary/render.ts';
import type { Property, PropertySummary, Transaction } from './resources.ts';
import type { dictionaries, properties, transactions } from './tables.ts';

export const prefix = apiPrefix('rcn');

type TransactionRow = RowOf<typeof transactions.columns>;
type PropertyRow = RowOf<typeof properties.columns>;
type DictionaryRow = RowOf<typeof dictionaries.columns>;

const segment = encodeURIComponent;

export const transactionPath = (id: string) => `${prefix}/transactions/${segment(id)}`;
export const propertyPath = (id: string) => `${prefix}/properties/${segment(id)}`;
export const dictionaryPath = (name: string) => `${prefix}/dictionaries/${segment(name)}`;

const term = (context: RenderContext, dictionary: string, code: number, value: string) => ({
  code,
  value,
  termUri: `${context.link(dictionaryPath(dictionary))}#code-${code}`,
});

export const renderTransaction = (row: TransactionRow, context: RenderContext): Transaction => ({
  uri: context.link(transactionPath(row.transaction_gml_id)),
  id: row.transaction_gml_id,
  transactionGmlId: row.transaction_gml_id,
  transactionIdentifier: row.transaction_identifier,
  idRCN: { namespace: row.id_rcn_namespace, localId: row.id_rcn_local_id, versionId: row.id_rcn_version_id },
  legalBasisDocument: {
    id: row.document_id,
    identifier: row.document_identifier,
    date: row.document_date,
    creator: row.document_creator,
  },
  transactionType: term(context, 'transaction-types', row.transaction_type_code, row.transaction_type_value),
  marketType: term(context, 'market-types', row.market_type_code, row.market_type_value),
  sellerPartyType: term(context, 'party-types', row.seller_party_type_code, row.seller_party_type_value),
  buyerPartyType: term(context, 'party-types', row.buyer_party_type_code, row.buyer_party_type_value),
  grossPrice: row.gross_price,
  vatAmount: row.vat_amount,
  currency: row.currency,
  properties: row.property_ids.map((id) => ({ propertyUri: context.link(propertyPath(id)), id })),
});

export const renderPropertySummary = (row: PropertyRow, context: RenderContext): PropertySummary => ({
  uri: context.link(propertyPath(row.property_gml_id)),
  id: row.property_gml_id,
  propertyGmlId: row.property_gml_id,
  propertyType: term(context, 'property-types', row.property_type_code, row.property_type_value),
  propertyRightType: term(context, 'property-right-types', row.property_right_type_code, row.property_right_type_value),
  propertyRightShare: row.property_right_share,
  landAreaM2: row.land_area_m2,
  grossPrice: row.gross_price,
  currency: row.currency,
  transactions: row.transaction_ids.map((id) => ({ transactionUri: context.link(transactionPath(id)), id })),
});

export const renderProperty = (row: PropertyRow, context: RenderContext): Property => ({
  ...renderPropertySummary(row, context),
  parcels: resolveLinks(row.parcels, context) as Property['parcels'],
  buildings: resolveLinks(row.buildings, context) as Property['buildings'],
  units: resolveLinks(row.units, context) as Property['units'],
});

export const renderDictionary = (row: DictionaryRow, context: RenderContext): unknown => resolveLinks(row.payload, context);
