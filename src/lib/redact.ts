/** Shortest value treated as a secret: shorter ones would mask ordinary words. */
const MIN_SECRET_LENGTH = 4;

/** Base64 text that depends only on the secret's bytes when `offset` bytes precede it. */
function stableBase64(secret: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64');
  const start = Math.ceil((offset * 8) / 6);
  const end = Math.floor(((offset + secret.length) * 8) / 6);
  return encoded.slice(start, end);
}

/** Every form in which a secret may show up in text we write: raw and common encodings. */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    bytes.toString('base64'),
    bytes.toString('base64url'),
  ]);
  for (const offset of [0, 1, 2]) {
    const stable = stableBase64(bytes, offset);
    if (stable.length >= 8) forms.add(stable);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/** Masks secret values in text ralph writes for people (logs, records, summaries, errors). */
export class Redactor {
  private readonly pattern: RegExp | undefined;
  /** Length of the longest form masked: text cut at any point keeps whole any shorter one. */
  readonly longest: number;

  constructor(secrets: Iterable<string>) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret.length >= MIN_SECRET_LENGTH)
        for (const form of secretForms(secret)) forms.add(form);
    }
    // Longest first, so a secret's longer encoding is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.longest = sorted[0]?.length ?? 0;
    this.pattern =
      sorted.length === 0
        ? undefined
        : new RegExp(
            sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
            'g',
          );
  }

  /** The text with every known secret form replaced by `***`. */
  redact(text: string): string {
    return this.pattern === undefined ? text : text.replace(this.pattern, '***');
  }

  /**
   * Redacts text that more may follow: all but a tail a secret could still run into. Returns
   * the redacted head and the tail, as it is, to be put before what comes next.
   */
  redactHead(text: string): { head: string; tail: string } {
    if (this.pattern === undefined) return { head: text, tail: '' };
    let cut = Math.max(0, text.length - (this.longest - 1));
    for (const match of text.matchAll(this.pattern)) {
      // A secret across the cut is taken whole into the head.
      if (match.index < cut && match.index + match[0].length > cut)
        cut = match.index + match[0].length;
    }
    return { head: this.redact(text.slice(0, cut)), tail: text.slice(cut) };
  }

  /** A JSON-safe copy of a value with every string redacted. */
  redactValue<T>(value: T): T {
    if (this.pattern === undefined) return value;
    return JSON.parse(this.redact(JSON.stringify(value))) as T;
  }
}
