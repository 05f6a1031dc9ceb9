import { existsSync } from 'node:fs';

/**
 * When `odsnap build` bundles the site while it writes the tree, it names in
 * `ODSNAP_SITE_TREE_READY` a file it writes once the tree holds what pages read (the index, the
 * listings, the figures and the catalogue). Pages are made after bundling; they wait here for
 * that file, so that bundling and the tree's files take their time side by side. If the builder
 * goes away first (it stops its site build when the tree's build fails), so does the wait.
 */
export async function treeReady(): Promise<void> {
  const marker = process.env.ODSNAP_SITE_TREE_READY;
  if (!marker) return;
  const builder = process.ppid;
  while (!existsSync(marker)) {
    if (process.ppid !== builder) throw new Error('odsnap build stopped before the static tree the site reads was ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
