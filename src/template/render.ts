const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * A section's opening (`{{#NAME}}`) or closing (`{{/NAME}}`) marker. A marker alone on its
 * line takes the line with it, so that a section left out leaves no blank line behind.
 */
const MARKER = /\{\{\s*([#/])\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}([ \t]*(?:\r?\n|$))?/gm;

/** A template as text and the sections in it. */
type Part = string | Section;
interface Section {
  name: string;
  parts: Part[];
}

/**
 * The template's text and sections. A marker without its pair stays text, where it reads as
 * an unknown placeholder (`{{#NAME}}`, `{{/NAME}}`).
 */
function parse(template: string): Part[] {
  const root: Part[] = [];
  const open: { section: Section; marker: string; outer: Part[] }[] = [];
  let parts = root;
  let last = 0;
  for (const match of template.matchAll(MARKER)) {
    const [whole, kind, name = '', trail] = match;
    const marker = whole.slice(0, whole.length - (trail ?? '').length);
    // Alone on its line, the marker takes the line; in a line of text, the text stays.
    const lineStart = template.lastIndexOf('\n', match.index - 1) + 1;
    const standalone =
      trail !== undefined && /^[ \t]*$/.test(template.slice(lineStart, match.index));
    parts.push(template.slice(last, standalone ? Math.max(last, lineStart) : match.index));
    last = match.index + whole.length;
    if (kind === '#') {
      const section: Section = { name, parts: [] };
      open.push({ section, marker, outer: parts });
      parts.push(section);
      parts = section.parts;
    } else if (open.at(-1)?.section.name === name) parts = open.pop()?.outer ?? root;
    else parts.push(marker);
    if (!standalone) parts.push(trail ?? '');
  }
  parts.push(template.slice(last));
  // An opening never closed: its marker is text again, its parts in line after it.
  for (let unclosed = open.pop(); unclosed !== undefined; unclosed = open.pop()) {
    const { section, marker, outer } = unclosed;
    outer.splice(outer.indexOf(section), 1, marker, ...section.parts);
  }
  return root;
}

/** The template's text with each section kept (its markers gone) or left out, by `keep`. */
function expand(parts: readonly Part[], keep: (name: string) => boolean): string {
  return parts
    .map((part) =>
      typeof part === 'string' ? part : keep(part.name) ? expand(part.parts, keep) : '',
    )
    .join('');
}

/** The placeholders of a parsed template (a section's name among them), in order of first use. */
function names(parts: readonly Part[], found = new Set<string>()): Set<string> {
  for (const part of parts) {
    if (typeof part === 'string')
      for (const match of part.matchAll(PLACEHOLDER)) found.add((match[1] ?? '').trim());
    else names(part.parts, found.add(part.name));
  }
  return found;
}

/** The placeholders a template uses (a section's name among them), in order of first use. */
export function placeholders(template: string): string[] {
  return [...names(parse(template))];
}

/** Result of rendering: the text, or the placeholders that have no value. */
export type RenderResult = { ok: true; text: string } | { ok: false; unknown: string[] };

/**
 * Replaces every `{{NAME}}` in one pass. Values are inserted literally: a `{{` inside a value
 * is never expanded again. A placeholder with no value is an error, never a silent leftover.
 * `{{#NAME}}…{{/NAME}}` is kept only when NAME's value has text: a section about a failure,
 * say, costs the tokens of its explanation only in the sessions it concerns.
 */
export function render(template: string, values: Readonly<Record<string, string>>): RenderResult {
  const parts = parse(template);
  const unknown = [...names(parts)].filter((name) => !Object.hasOwn(values, name));
  if (unknown.length > 0) return { ok: false, unknown };
  const kept = expand(parts, (name) => (values[name] ?? '').trim() !== '');
  return {
    ok: true,
    text: kept.replace(PLACEHOLDER, (_match, name: string) => values[name.trim()] ?? ''),
  };
}
