/** What a data set declares of an endpoint answered as `numbered-page`: apart from the kind (index.ts), so that its parts import it and not the kind. */

/**
 * Numbered pages `{ data, page, pageSize, hasNextPage }` of the rows whose `time` falls in
 * from..to: the bike share's `/rides`. `until`: the column of a row's end, where rows span time
 * (a ride's finish): an upstream may choose rows by their end or by overlap instead (see
 * RangeRule). `maxDays`: the most days a range may cover.
 */
export interface NumberedPageAnswer {
  readonly kind: 'numbered-page';
  readonly resource: string;
  readonly time: string;
  readonly until?: string;
  readonly maxDays?: number;
}
