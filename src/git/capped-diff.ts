/** A diff cut to fit: whole files while they fit, and the names of those left out. */
export interface CappedDiff {
  text: string;
  /** Files left out, with their size in characters. */
  leftOut: { file: string; chars: number }[];
}

/** The file a `diff --git a/… b/…` section is of. */
const fileOf = (section: string) => /^diff --git a\/.* b\/(.*)$/m.exec(section)?.[1] ?? '?';

/** `diff` cut to at most `cap` characters at file boundaries, smaller files first kept whole. */
export function capDiff(diff: string, cap: number): CappedDiff {
  if (diff.length <= cap) return { text: diff, leftOut: [] };
  const sections = diff.split(/(?=^diff --git )/m).filter((s) => s !== '');
  const kept = new Set<string>();
  let size = 0;
  for (const section of [...sections].sort((a, b) => a.length - b.length))
    if (size + section.length <= cap) {
      kept.add(section);
      size += section.length;
    }
  return {
    text: sections.filter((s) => kept.has(s)).join(''),
    leftOut: sections
      .filter((s) => !kept.has(s))
      .map((s) => ({ file: fileOf(s), chars: s.length })),
  };
}
