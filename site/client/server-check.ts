/**
 * Whether an odsnap server answers beside the site: its health check, not just any 200 page. On a
 * static host nothing answers there, and what needs the server says so.
 */
export async function serverAnswers(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base.replace(/\/+$/, '')}/healthz`, { cache: 'no-store', headers: { accept: 'application/json' } });
    if (!response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return false;
    return ((await response.json()) as { status?: unknown }).status === 'ok';
  } catch {
    return false;
  }
}

/** Links to server requests (`a[data-server]`) stop being links when no server answers: they would only fail. */
export async function markServerLinks(base: string): Promise<void> {
  const links = document.querySelectorAll<HTMLAnchorElement>('a[data-server]');
  if (!links.length || (await serverAnswers(base))) return;
  for (const link of links) {
    link.removeAttribute('href');
    link.setAttribute('aria-disabled', 'true');
  }
}
