import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { treeReady } from '../../../site/snapshot/tree-ready.ts';
import { tempDir } from '../../fixtures/tiny.ts';

describe('a site build beside the static tree', () => {
  afterEach(() => {
    delete process.env.ODSNAP_SITE_TREE_READY;
  });

  it('makes its pages only once the builder says the tree is ready', async () => {
    const marker = join(await tempDir('tree-ready'), 'site.ready');
    process.env.ODSNAP_SITE_TREE_READY = marker;
    let settled = false;
    const waiting = treeReady().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    await writeFile(marker, 'ready');
    await waiting;
    expect(settled).toBe(true);
  });

  it('does not wait when no builder asked it to', async () => {
    await expect(treeReady()).resolves.toBeUndefined();
  });
});
