import { text, type Text } from '../../core/text.ts';
import { city } from '../vocabulary/sample-city.ts';

/**
 * Warsaw's districts by the TERYT code of their cadastral units, the `WWPPGG_R` prefix of a parcel
 * identifier (`146510_8.0001.123/4` lies in Śródmieście): the city's own table (the sample city is
 * Warsaw). Proper names, the same in both languages.
 */
export const districts: Readonly<Record<string, Text>> = Object.fromEntries(
  city.districts.map((district) => [district.teryt, text(district.name, district.name)]),
);

/** SQL: the district of a parcel identifier, its TERYT unit prefix. */
export const districtOf = (parcelId: string) => `regexp_extract(${parcelId}, '^[0-9]{6}_[0-9]')`;
