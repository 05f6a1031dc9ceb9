/** Fills `{name}` placeholders of the page's words (the dictionaries' client texts) with values. */
export const fill = (text: string, values: Readonly<Record<string, string | number>>) =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

/** The JSON an element carries in a data attribute: the page's words, or what the build knew. */
export function dataOf<T>(element: HTMLElement, name: string): T {
  return JSON.parse(element.dataset[name] ?? 'null') as T;
}
