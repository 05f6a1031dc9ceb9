/** The two interface languages of the v1 service: its texts exist in English and Polish. */
export const languages = ['en', 'pl'] as const;
export type Language = (typeof languages)[number];

/** A text in both interface languages. */
export type Text = Readonly<Record<Language, string>>;

export const text = (en: string, pl: string): Text => ({ en, pl });

/** Text as HTML: `&`, `<`, `>`, `"` and `'` as character references, safe in an element or a quoted attribute. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
