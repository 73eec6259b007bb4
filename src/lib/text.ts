/** `1 turn`, `2 turns`: a count with its noun. */
export function plural(count: number | bigint, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : nouns}`;
}

/** A dollar amount as people read it: `0.0118`, never `0.011755999999999999`. */
export function formatUsd(usd: number): string {
  return usd.toFixed(4);
}
