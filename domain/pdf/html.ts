/**
 * HTML building for the PDF sheets. Every interpolated value is escaped unless it is already
 * `SafeHtml` (the output of `html` itself), so a name such as `<b>Ana & "Bia"</b>` prints as text and
 * cannot add markup, scripts or resource fetches to the page.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

/** Markup that is safe to insert as is: only `html` and `joinHtml` make it. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: literal parts are markup, every `${value}` is escaped (lists are concatenated). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, i) => {
    markup += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(markup);
}

export function joinHtml(parts: readonly HtmlValue[], separator = ''): SafeHtml {
  return new SafeHtml(parts.map(render).filter(Boolean).join(escapeHtml(separator)));
}
