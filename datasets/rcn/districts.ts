import { text, type Text } from '../../core/text.ts';

/**
 * Warsaw's districts by the TERYT code of their cadastral units, the `WWPPGG_R` prefix of a parcel
 * identifier (`146510_8.0001.123/4` lies in Śródmieście). Proper names, the same in both languages.
 */
const names: Readonly<Record<string, string>> = {
  '02': 'Bemowo', '03': 'Białołęka', '04': 'Bielany', '05': 'Mokotów', '06': 'Ochota', '07': 'Praga-Południe',
  '08': 'Praga-Północ', '09': 'Rembertów', '10': 'Śródmieście', '11': 'Targówek', '12': 'Ursus', '13': 'Ursynów',
  '14': 'Wawer', '15': 'Wesoła', '16': 'Wilanów', '17': 'Włochy', '18': 'Wola', '19': 'Żoliborz',
};

export const districts: Readonly<Record<string, Text>> = Object.fromEntries(Object.entries(names).map(([code, name]) => [`1465${code}_8`, text(name, name)]));

/** SQL: the district of a parcel identifier, its TERYT unit prefix. */
export const districtOf = (parcelId: string) => `regexp_extract(${parcelId}, '^[0-9]{6}_[0-9]')`;
