/** `1 turn`, `2 turns`: a count with its noun. */
export function plural(count: number | bigint, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : nouns}`;
}
