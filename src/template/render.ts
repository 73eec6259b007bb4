const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** The placeholders a template uses, in order of first use. */
export function placeholders(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add((match[1] ?? '').trim());
  return [...names];
}

/** Result of rendering: the text, or the placeholders that have no value. */
export type RenderResult = { ok: true; text: string } | { ok: false; unknown: string[] };

/**
 * Replaces every `{{NAME}}` in one pass. Values are inserted literally: a `{{` inside a value
 * is never expanded again. A placeholder with no value is an error, never a silent leftover.
 */
export function render(template: string, values: Readonly<Record<string, string>>): RenderResult {
  const unknown = placeholders(template).filter((name) => !Object.hasOwn(values, name));
  if (unknown.length > 0) return { ok: false, unknown };
  return {
    ok: true,
    text: template.replace(PLACEHOLDER, (_match, name: string) => values[name.trim()] ?? ''),
  };
}
