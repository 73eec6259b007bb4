/** `1 turn`, `2 turns`: a count with its noun. */
export function plural(count: number | bigint, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : nouns}`;
}

/** A dollar amount as people read it: `0.0118`, never `0.011755999999999999`. */
/** A change's size as people read it: `3 files +10 −2`. */
export function changesText(changes: { files: number; added: number; deleted: number }): string {
  return `${plural(changes.files, 'file')} +${changes.added} −${changes.deleted}`;
}

export function formatUsd(usd: number): string {
  return usd.toFixed(4);
}

/** A slug of `text` for an id: lower-case letters, digits and dashes, at most 40 (or `fallback`). */
export function slugOf(text: string, fallback: string): string {
  const slug = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
}

/**
 * Orders texts by their code units: for the ids, times and names ralph sorts, as a locale
 * would, without `localeCompare`, whose first call sets up the collator (milliseconds of a
 * short command's start).
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
