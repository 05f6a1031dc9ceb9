import { z } from 'zod';
import { day, decimal, decimalText, doc, link, named, unshown } from '../vocabulary/field.ts';

/** Section 2.2 of the spec. */
export const codedTerm = named(
  'CodedTerm',
  z.object({
    code: doc(
      z.number().int(),
      'Code from the matching dictionary; the value the matching filter parameter accepts.',
      'Kod z odpowiedniego słownika; tę wartość przyjmuje odpowiedni parametr filtra.',
    ),
    value: doc(z.string(), 'Canonical value of the term.', 'Kanoniczna wartość pojęcia.'),
    termUri: doc(
      link(),
      'Address of the term in its dictionary: <dictionary address>#code-<code>.',
      'Adres pojęcia w jego słowniku: <adres słownika>#code-<kod>.',
    ),
  }),
  'A code with its canonical value and the address of the term in its dictionary.',
  'Kod z kanoniczną wartością i adresem pojęcia w słowniku.',
);

const term = (dictionary: string, en: string, pl: string) => doc(codedTerm, `${en} Dictionary: ${dictionary}.`, `${pl} Słownik: ${dictionary}.`);

/** Section 2.1. */
export const transaction = named(
  'Transaction',
  z.object({
    uri: doc(link(), 'Absolute address of the transaction resource.', 'Bezwzględny adres zasobu transakcji.'),
    id: doc(z.string(), 'Equal to transactionGmlId.', 'Równy transactionGmlId.'),
    transactionGmlId: doc(
      z.string(),
      'Stable transaction GML identifier; used in the path of the single-transaction endpoint.',
      'Stały identyfikator GML transakcji; używany w ścieżce punktu końcowego pojedynczej transakcji.',
    ),
    transactionIdentifier: doc(
      z.string().regex(/^\d{4}\/\S+$/),
      'Identifier assigned in the register, shaped <year>/<number>.',
      'Oznaczenie nadane w rejestrze, w postaci <rok>/<numer>.',
    ),
    idRCN: doc(
      z.object({
        namespace: doc(z.string(), 'Namespace of the register, e.g. PL.PZGiK.5346.RCN.', 'Przestrzeń nazw rejestru, np. PL.PZGiK.5346.RCN.'),
        localId: doc(z.string(), 'Local identifier within the namespace.', 'Identyfikator lokalny w przestrzeni nazw.'),
        versionId: doc(
          z.iso.datetime({ offset: true, local: true }),
          'Version of the record, an ISO 8601 UTC timestamp.',
          'Wersja rekordu, znacznik czasu ISO 8601 w UTC.',
        ),
      }),
      'Structured register identifier.',
      'Ustrukturyzowany identyfikator w rejestrze.',
    ),
    legalBasisDocument: doc(
      z.object({
        id: doc(z.string(), 'Identifier of the document.', 'Identyfikator dokumentu.'),
        identifier: doc(
          z.string(),
          'Designation of the document, e.g. a notarial deed number.',
          'Oznaczenie dokumentu, np. numer repertorium aktu notarialnego.',
        ),
        date: doc(day(), 'Date the document was drawn up, YYYY-MM-DD.', 'Data sporządzenia dokumentu, RRRR-MM-DD.'),
        creator: doc(z.string(), 'Who drew up the document (a notary, a court, an office).', 'Twórca dokumentu (notariusz, sąd, urząd).'),
      }),
      'The legal-basis document of the transaction.',
      'Dokument stanowiący podstawę prawną transakcji.',
    ),
    transactionType: term('transaction-types', 'Transaction type.', 'Rodzaj transakcji.'),
    marketType: term('market-types', 'Market type.', 'Rodzaj rynku.'),
    sellerPartyType: term('party-types', 'Category of the selling party.', 'Kategoria strony sprzedającej.'),
    buyerPartyType: term('party-types', 'Category of the buying party.', 'Kategoria strony kupującej.'),
    grossPrice: doc(decimal(2), 'Gross price, a decimal with two decimals.', 'Cena brutto, liczba z dwoma miejscami po przecinku.'),
    vatAmount: doc(
      decimalText().nullable(),
      'VAT amount, a decimal; null when none is recorded.',
      'Kwota podatku VAT, liczba dziesiętna; null, gdy jej nie podano.',
    ),
    currency: doc(z.string(), 'Currency code, e.g. PLN.', 'Kod waluty, np. PLN.'),
    properties: doc(
      z.array(
        z.object({
          propertyUri: doc(link(), 'Address of the property.', 'Adres nieruchomości.'),
          id: doc(z.string(), 'Property identifier (propertyGmlId).', 'Identyfikator nieruchomości (propertyGmlId).'),
        }),
      ),
      'The properties sold in the transaction.',
      'Nieruchomości będące przedmiotem transakcji.',
    ),
  }),
  'A property transaction of the price register.',
  'Transakcja z rejestru cen nieruchomości.',
);

const propertyFields = {
  uri: doc(link(), 'Address of the property resource.', 'Adres zasobu nieruchomości.'),
  id: doc(z.string(), 'Equal to propertyGmlId.', 'Równy propertyGmlId.'),
  propertyGmlId: doc(z.string(), 'Stable property GML identifier.', 'Stały identyfikator GML nieruchomości.'),
  propertyType: term('property-types', 'Property type.', 'Rodzaj nieruchomości.'),
  propertyRightType: term('property-right-types', 'Type of the right to the property.', 'Rodzaj prawa do nieruchomości.'),
  propertyRightShare: doc(
    z.string().regex(/^\d+\/\d+$/),
    'Share in the right, a fraction <numerator>/<denominator>.',
    'Udział w prawie, ułamek <licznik>/<mianownik>.',
  ),
  landAreaM2: doc(
    decimal(4),
    'Land area in square metres, with four decimals.',
    'Powierzchnia gruntu w metrach kwadratowych, z czterema miejscami po przecinku.',
  ),
  grossPrice: doc(decimal(2), 'Gross price, a decimal with two decimals.', 'Cena brutto, liczba z dwoma miejscami po przecinku.'),
  currency: doc(z.string(), 'Currency code, e.g. PLN.', 'Kod waluty, np. PLN.'),
  transactions: doc(
    z.array(
      z.object({
        transactionUri: doc(link(), 'Address of the transaction.', 'Adres transakcji.'),
        id: doc(z.string(), 'Transaction identifier (transactionGmlId).', 'Identyfikator transakcji (transactionGmlId).'),
      }),
    ),
    'The transactions in which the property was sold.',
    'Transakcje, w których nieruchomość zbyto.',
  ),
};

/** Section 2.3, list form: without parcels, buildings and units. */
export const propertySummary = named(
  'PropertySummary',
  z.object(propertyFields),
  'A property as the property list shows it.',
  'Nieruchomość w postaci z listy nieruchomości.',
);

const details = (en: string, pl: string) =>
  doc(
    z.array(z.record(z.string(), unshown())),
    `${en} Element fields are not shown by the spec and are kept as the upstream sends them; the sample upstream's shape is documented with the data set.`,
    `${pl} Specyfikacja nie pokazuje pól elementów; są zachowywane tak, jak przesyła je źródło. Kształt z przykładowego źródła opisano przy zbiorze danych.`,
  );

/** Section 2.3, single-property form. */
export const property = named(
  'Property',
  z.object({
    ...propertyFields,
    parcels: details('Cadastral parcels of the property.', 'Działki ewidencyjne nieruchomości.'),
    buildings: details('Buildings of the property.', 'Budynki nieruchomości.'),
    units: details('Units (apartments, premises) of the property.', 'Lokale nieruchomości.'),
  }),
  'A property with its parcels, buildings and units.',
  'Nieruchomość z działkami, budynkami i lokalami.',
);

/** Section 2.4. */
export const pagination = named(
  'Pagination',
  z.object({
    limit: doc(z.number().int(), 'Applied page size.', 'Zastosowany rozmiar strony.'),
    offset: doc(z.number().int(), 'Applied number of skipped records.', 'Zastosowana liczba pominiętych rekordów.'),
    count: doc(z.number().int(), 'Number of records in this response.', 'Liczba rekordów w tej odpowiedzi.'),
    total: doc(z.number().int(), 'Total number of matching records.', 'Łączna liczba pasujących rekordów.'),
    next: doc(link().nullable(), 'Absolute address of the next page; null on the last page.', 'Bezwzględny adres następnej strony; null na ostatniej stronie.'),
  }),
  'Where a page sits in the whole list.',
  'Położenie strony w całej liście.',
);

/** Dictionary payloads: not shown by the spec, so any JSON (an object, an array, …) is kept as it comes. */
export const dictionaryPayload = named(
  'DictionaryPayload',
  unshown(),
  'Payload of a dictionary endpoint. Its shape is not shown by the spec; odsnap keeps it as the upstream sends it. The sample upstream answers { name, uri, label: { en, pl }, items: [ { code, value, termUri, label: { en, pl } } ] } for a dictionary and { items: [ { name, uri, label, termCount } ] } for the list.',
  'Treść odpowiedzi punktu słownika. Specyfikacja nie pokazuje jej kształtu; odsnap zachowuje ją tak, jak przesyła ją źródło. Przykładowe źródło odpowiada { name, uri, label: { en, pl }, items: [ { code, value, termUri, label: { en, pl } } ] } dla słownika i { items: [ { name, uri, label, termCount } ] } dla listy.',
);

export type Transaction = z.infer<typeof transaction>;
export type PropertySummary = z.infer<typeof propertySummary>;
export type Property = z.infer<typeof property>;
