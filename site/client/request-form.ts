import { requestUrl, type RequestField } from './request-url.ts';
import { serverAnswers } from './server-check.ts';
import { dataOf, fill } from './texts.ts';

/**
 * The v1 form of the query page (RequestForm.astro): shows the fields of the chosen endpoint,
 * the request URL as they change, and sends it to the server when one answers on this origin
 * (`/healthz`); on a static host it says the request needs `odsnap serve`.
 */

interface Texts {
  readonly checking: string;
  readonly serverUp: string;
  readonly serverDown: string;
  readonly missing: string;
  readonly sending: string;
  readonly answered: string;
  readonly items: string;
  readonly problem: string;
  readonly failed: string;
  readonly truncated: string;
}

/** Longest answer shown as text; the URL gives the whole. */
const MAX_BODY_CHARS = 100_000;

/** How many items an answer holds: a list, or a page of `items`. */
function itemCount(body: unknown): number | undefined {
  if (Array.isArray(body)) return body.length;
  const items = body && typeof body === 'object' ? (body as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? items.length : undefined;
}

export function mountRequestForm(root: HTMLElement): void {
  const texts = dataOf<Texts>(root, 'texts');
  const base = root.dataset.base ?? '/';
  const find = <T extends Element>(selector: string) => root.querySelector<T>(selector)!;
  const form = find<HTMLFormElement>('[data-request]');
  const endpoint = find<HTMLSelectElement>('[data-request-endpoint]');
  const url = find<HTMLElement>('[data-request-url]');
  const missing = find<HTMLElement>('[data-request-missing]');
  const send = find<HTMLButtonElement>('[data-request-send]');
  const serverStatus = find<HTMLElement>('[data-server-status]');
  const response = find<HTMLElement>('[data-request-response]');
  const summary = find<HTMLElement>('[data-request-summary]');
  const body = find<HTMLElement>('[data-request-body]');
  const fieldsets = [...root.querySelectorAll<HTMLFieldSetElement>('[data-request-params]')];
  let server = false;

  const current = () => fieldsets.find((fieldset) => fieldset.dataset.requestParams === endpoint.value)!;
  const inputs = () => [...current().querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-in]')];
  const fields = (): RequestField[] => inputs().map((input) => ({ name: input.name, in: input.dataset.in as 'path' | 'query', value: input.value }));
  const built = () => requestUrl(base, endpoint.value, fields());

  function update() {
    url.textContent = built();
    const empty = inputs()
      .filter((input) => input.required && !input.value.trim())
      .map((input) => input.name);
    missing.hidden = !empty.length;
    missing.textContent = empty.length ? fill(texts.missing, { names: empty.join(', ') }) : '';
    send.disabled = !server;
  }

  function choose() {
    for (const fieldset of fieldsets) {
      const shown = fieldset.dataset.requestParams === endpoint.value;
      fieldset.hidden = !shown;
      fieldset.disabled = !shown;
    }
    update();
  }

  async function submit() {
    if (!server || !form.reportValidity()) return;
    const target = built();
    response.hidden = false;
    summary.textContent = texts.sending;
    body.textContent = '';
    try {
      const answer = await fetch(target, { headers: { accept: 'application/json' } });
      const type = answer.headers.get('content-type') ?? '';
      const text = await answer.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: shown as it came.
      }
      const lines = [fill(texts.answered, { status: answer.status, type: type.split(';')[0] || '?' })];
      if (type.includes('problem+json') && parsed && typeof parsed === 'object') {
        const problem = parsed as { title?: string; detail?: string };
        lines.push(fill(texts.problem, { title: problem.title ?? '', detail: problem.detail ?? '' }));
      } else {
        const count = itemCount(parsed);
        if (count !== undefined) lines.push(fill(texts.items, { count }));
      }
      const pretty = typeof parsed === 'string' ? parsed : JSON.stringify(parsed, null, 2);
      if (pretty.length > MAX_BODY_CHARS) lines.push(texts.truncated);
      summary.textContent = lines.join(' ');
      body.textContent = pretty.slice(0, MAX_BODY_CHARS);
      root.dataset.answerStatus = String(answer.status);
    } catch (failure) {
      summary.textContent = fill(texts.failed, { message: failure instanceof Error ? failure.message : String(failure) });
    }
  }

  endpoint.addEventListener('change', choose);
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  choose();
  void serverAnswers(base).then((answers) => {
    server = answers;
    serverStatus.textContent = answers ? texts.serverUp : texts.serverDown;
    root.dataset.server = answers ? 'up' : 'down';
    update();
  });
}
