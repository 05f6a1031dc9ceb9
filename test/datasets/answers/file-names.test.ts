import { describe, expect, it } from 'vitest';
import { escapeFileName, fileNameInUrl } from '../../../datasets/answers/file-names.ts';
import { fileNameOf, valueOfFileName } from '../../../datasets/answers/static-files.ts';

/** Keys a record may have that are awkward as a file name or in a URL. */
const AWKWARD = [
  'a b',
  'a/b',
  '/lead',
  'back\\slash',
  'zażółć gęślą jaźń',
  '東京',
  '100%',
  'a%2Fb',
  '..',
  '.',
  '../../x',
  '.hidden',
  'tab\there',
  'x?y#z&w=1',
  '+plus',
];

describe('the record file names the site links to', () => {
  it.each(AWKWARD)('are the names the build gives the files, for %j', (value) => {
    expect(escapeFileName(value)).toBe(fileNameOf(value));
    expect(valueOfFileName(escapeFileName(value))).toBe(value);
  });

  it.each(AWKWARD)('stand in a URL for the file a static host finds, for %j', (value) => {
    const segment = fileNameInUrl(value);
    expect(segment).not.toMatch(/[/?#\s]/);
    // A static host decodes the URL's path once, then looks for the file of that name.
    expect(decodeURIComponent(segment)).toBe(fileNameOf(value));
  });

  it('escape a slash twice in the link, once in the name', () => {
    expect(fileNameOf('a/b')).toBe('a%2Fb');
    expect(fileNameInUrl('a/b')).toBe('a%252Fb');
  });
});
