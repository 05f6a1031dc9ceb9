import { text, type Text } from '../../core/text.ts';

/**
 * The nine code lists of the register (RCN schema), with their canonical values. Labels are the
 * project's translations. Local-plan designations have no published numeric codes; these are
 * odsnap's own, in the order of the known values.
 */
export interface Term {
  readonly code: number;
  readonly value: string;
  readonly label: Text;
}

export interface Dictionary {
  readonly name: string;
  readonly label: Text;
  readonly terms: readonly Term[];
}

const term = (code: number, value: string, en: string, pl: string): Term => ({ code, value, label: text(en, pl) });

export const transactionTypes: Dictionary = {
  name: 'transaction-types',
  label: text('Transaction type', 'Rodzaj transakcji'),
  terms: [
    term(1, 'wolnyRynek', 'free-market sale', 'sprzedaż na wolnym rynku'),
    term(2, 'sprzedazBezprzetargowa', 'non-tender sale', 'sprzedaż bezprzetargowa'),
    term(3, 'sprzedazPrzetargowa', 'sale by tender', 'sprzedaż przetargowa'),
    term(4, 'sprzedazWPostepowaniuEgzekucyjnym', 'sale in enforcement proceedings', 'sprzedaż w postępowaniu egzekucyjnym'),
    term(5, 'sprzedazNaCelPubliczny', 'sale for a public purpose', 'sprzedaż na cel publiczny'),
    term(6, 'sprzedazZBonifikata', 'sale with a statutory discount', 'sprzedaż z bonifikatą'),
  ],
};

export const marketTypes: Dictionary = {
  name: 'market-types',
  label: text('Market type', 'Rodzaj rynku'),
  terms: [term(1, 'rynekPierwotny', 'primary market', 'rynek pierwotny'), term(2, 'rynekWtorny', 'secondary market', 'rynek wtórny')],
};

export const partyTypes: Dictionary = {
  name: 'party-types',
  label: text('Party type (seller or buyer)', 'Rodzaj strony (sprzedającej lub kupującej)'),
  terms: [
    term(1, 'skarbPanstwa', 'State Treasury', 'Skarb Państwa'),
    term(2, 'jednostkaSamorzaduTerytorialnego', 'local-government unit', 'jednostka samorządu terytorialnego'),
    term(3, 'osobaFizyczna', 'natural person', 'osoba fizyczna'),
    term(4, 'osobaPrawna', 'legal person', 'osoba prawna'),
  ],
};

export const propertyTypes: Dictionary = {
  name: 'property-types',
  label: text('Property type', 'Rodzaj nieruchomości'),
  terms: [
    term(1, 'nieruchomoscGruntowaNiezabudowana', 'undeveloped land', 'nieruchomość gruntowa niezabudowana'),
    term(2, 'nieruchomoscGruntowaZabudowana', 'developed land', 'nieruchomość gruntowa zabudowana'),
    term(3, 'nieruchomoscBudynkowa', 'building property', 'nieruchomość budynkowa'),
    term(4, 'nieruchomoscLokalowa', 'unit (apartment or premises) property', 'nieruchomość lokalowa'),
  ],
};

export const propertyRightTypes: Dictionary = {
  name: 'property-right-types',
  label: text('Property right type', 'Rodzaj prawa do nieruchomości'),
  terms: [
    term(1, 'wlasnoscNieruchomosciGruntowej', 'ownership of land', 'własność nieruchomości gruntowej'),
    term(2, 'uzytkowanieWieczyste', 'perpetual usufruct', 'użytkowanie wieczyste'),
    term(3, 'wlasnoscLokaluWrazZPrawemZwiazanym', 'unit ownership with the associated right', 'własność lokalu wraz z prawem związanym'),
    term(4, 'wlasnoscBudynkuWrazZPrawemZwiazanym', 'building ownership with the associated right', 'własność budynku wraz z prawem związanym'),
  ],
};

export const landUses: Dictionary = {
  name: 'land-uses',
  label: text('Land use (cadastre)', 'Sposób użytkowania (ewidencja gruntów)'),
  terms: [
    term(1, 'gruntyRolne', 'agricultural land', 'grunty rolne'),
    term(2, 'gruntyLesne', 'forest land', 'grunty leśne'),
    term(3, 'gruntyZabudowaneIZurbanizowane', 'built-up and urbanised land', 'grunty zabudowane i zurbanizowane'),
    term(4, 'terenyKomunikacyjne', 'transport land', 'tereny komunikacyjne'),
    term(5, 'inne', 'other', 'inne'),
  ],
};

export const localPlanDesignations: Dictionary = {
  name: 'local-plan-designations',
  label: text('Local-plan designation', 'Przeznaczenie w miejscowym planie zagospodarowania przestrzennego'),
  terms: [
    term(1, 'budownictwoMieszkanioweJednorodzinne', 'single-family housing', 'budownictwo mieszkaniowe jednorodzinne'),
    term(2, 'budownictwoMieszkanioweWielorodzinne', 'multi-family housing', 'budownictwo mieszkaniowe wielorodzinne'),
    term(3, 'terenZabudowyUslugowej', 'service and commercial development', 'teren zabudowy usługowej'),
    term(4, 'terenObiektowProdukcyjnychSkladowIMagazynow', 'production, storage and warehouse facilities', 'teren obiektów produkcyjnych, składów i magazynów'),
    term(5, 'terenZabudowyZagrodowejGospodarstwRolnych', 'farmstead development', 'teren zabudowy zagrodowej w gospodarstwach rolnych'),
    term(6, 'terenRolniczy', 'agricultural area', 'teren rolniczy'),
    term(7, 'terenLesny', 'forest area', 'teren leśny'),
    term(8, 'terenDrogWewnetrznych', 'internal roads', 'teren dróg wewnętrznych'),
    term(9, 'decyzjaWarunkiZabudowy', 'no plan; covered by a zoning decision', 'decyzja o warunkach zabudowy'),
    term(10, 'brakMPZPLubWZ', 'no local plan and no zoning decision', 'brak MPZP lub decyzji WZ'),
    term(11, 'innyNiewymieniony', 'other, not listed', 'inny, niewymieniony'),
  ],
};

export const buildingTypes: Dictionary = {
  name: 'building-types',
  label: text('Building type', 'Rodzaj budynku'),
  terms: [
    term(101, 'przemyslowy', 'industrial', 'przemysłowy'),
    term(102, 'transportuILacznosci', 'transport and communications', 'transportu i łączności'),
    term(103, 'handlowoUslugowy', 'retail and services', 'handlowo-usługowy'),
    term(104, 'zbiornikiSilosyMagazyny', 'tanks, silos and warehouses', 'zbiorniki, silosy i budynki magazynowe'),
    term(105, 'biurowy', 'office', 'biurowy'),
    term(106, 'szpitale', 'hospitals and medical care', 'szpitale i inne budynki opieki zdrowotnej'),
    term(107, 'oswiatyISportu', 'education, culture and sport', 'oświaty, nauki, kultury i sportu'),
    term(108, 'gospodarczy', 'farm and utility', 'gospodarczy'),
    term(109, 'pozostaleNiemieszkalne', 'other non-residential', 'pozostały niemieszkalny'),
    term(110, 'mieszkalny', 'residential', 'mieszkalny'),
  ],
};

export const unitFunctions: Dictionary = {
  name: 'unit-functions',
  label: text('Unit function', 'Funkcja lokalu'),
  terms: [
    term(1, 'mieszkalna', 'residential', 'mieszkalna'),
    term(2, 'handlowoUslugowa', 'retail and services', 'handlowo-usługowa'),
    term(3, 'biurowa', 'office', 'biurowa'),
    term(4, 'produkcyjna', 'production', 'produkcyjna'),
    term(5, 'garaz', 'garage', 'garaż'),
    term(6, 'inna', 'other', 'inna'),
  ],
};

/** In the order of spec section 4.1. */
export const dictionaries: readonly Dictionary[] = [
  transactionTypes,
  marketTypes,
  partyTypes,
  propertyTypes,
  propertyRightTypes,
  landUses,
  localPlanDesignations,
  buildingTypes,
  unitFunctions,
];

export function termOf(dictionary: Dictionary, code: number): Term {
  const found = dictionary.terms.find((t) => t.code === code);
  if (!found) throw new Error(`${dictionary.name} has no code ${code}`);
  return found;
}
