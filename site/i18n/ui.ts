import { languages, type Language } from '../../core/text.ts';
import { en, type Ui } from './en.ts';
import { pl } from './pl.ts';

const dictionaries: Readonly<Record<Language, Ui>> = { en, pl };

/** The site's own words in a language. */
export const uiOf = (lang: Language): Ui => dictionaries[lang];

/** The other interface language: the target of every page's language switch. */
export const otherLanguage = (lang: Language): Language => languages.find((other) => other !== lang)!;

export type { Ui };
