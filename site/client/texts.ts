/**
 * Fills `{name}` placeholders of the page's words (the dictionaries' client texts) with values,
 * and plurals written as ICU messages write them: `{rows, plural, one {# row} other {# rows}}`
 * takes the form of the value's plural category in `lang` (Intl.PluralRules: English has one and
 * other, Polish one, few, many and other), `#` standing for the value.
 */
export function fill(text: string, values: Readonly<Record<string, string | number>>, lang = 'en'): string {
  const plurals = text.replace(/\{(\w+), plural,((?:\s*\w+\s*\{[^{}]*\})+)\s*\}/g, (whole, name: string, forms: string) => {
    if (!(name in values)) return whole;
    const value = values[name]!;
    const form = Object.fromEntries([...forms.matchAll(/(\w+)\s*\{([^{}]*)\}/g)].map(([, category, words]) => [category, words]));
    return (form[new Intl.PluralRules(lang).select(Number(value))] ?? form.other ?? '').replaceAll('#', String(value));
  });
  return plurals.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The JSON an element carries in a data attribute: the page's words, or what the build knew. */
export function dataOf<T>(element: HTMLElement, name: string): T {
  return JSON.parse(element.dataset[name] ?? 'null') as T;
}
