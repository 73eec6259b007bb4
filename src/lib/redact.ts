import { createHash, randomBytes } from 'node:crypto';

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

/** A secret's form, known by its length and hashes: it can be found in text, not read back. */
export interface SecretForm {
  length: number;
  /** A rolling hash (mod ROLLING_MODULUS): finds candidates in one pass over the text. */
  rolling: number;
  /** SHA-256 of the session's salt and the form: confirms a candidate. */
  sha256: string;
}

/** What a session's record keeps of the secrets its agent could have seen, never their values. */
export interface SecretFingerprints {
  salt: string;
  forms: SecretForm[];
}

const ROLLING_BASE = 257;
/** A prime below 2^26: every product of the rolling hash stays an exact double. */
const ROLLING_MODULUS = 67_108_859;

function rollingHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++)
    hash = (hash * ROLLING_BASE + text.charCodeAt(i)) % ROLLING_MODULUS;
  return hash;
}

function saltedSha256(salt: string, text: string): string {
  return createHash('sha256').update(salt).update('\0').update(text).digest('hex');
}

/** The fingerprints of secrets (each in every form it may be written in), with a fresh salt. */
export function fingerprintSecrets(secrets: Iterable<string>): SecretFingerprints {
  const salt = randomBytes(16).toString('hex');
  const forms = new Map<string, SecretForm>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of secretForms(secret))
      forms.set(form, {
        length: form.length,
        rolling: rollingHash(form),
        sha256: saltedSha256(salt, form),
      });
  }
  return { salt, forms: [...forms.values()] };
}

/** Where in `text` a fingerprinted form stands: [start, end) ranges, in order, not overlapping. */
function fingerprintMatches(
  text: string,
  prints: readonly SecretFingerprints[],
): [number, number][] {
  const found: [number, number][] = [];
  for (const { salt, forms } of prints) {
    const byLength = new Map<number, SecretForm[]>();
    for (const form of forms)
      byLength.set(form.length, [...(byLength.get(form.length) ?? []), form]);
    for (const [length, candidates] of byLength) {
      if (length > text.length) continue;
      const wanted = new Set(candidates.map((c) => c.rolling));
      // ROLLING_BASE^(length-1): what the character leaving the window weighed.
      let lead = 1;
      for (let i = 1; i < length; i++) lead = (lead * ROLLING_BASE) % ROLLING_MODULUS;
      let hash = rollingHash(text.slice(0, length));
      for (let start = 0; ; start++) {
        if (wanted.has(hash)) {
          const sha = saltedSha256(salt, text.slice(start, start + length));
          if (candidates.some((c) => c.sha256 === sha)) found.push([start, start + length]);
        }
        const end = start + length;
        if (end >= text.length) break;
        hash =
          ((hash - ((text.charCodeAt(start) * lead) % ROLLING_MODULUS) + ROLLING_MODULUS) *
            ROLLING_BASE +
            text.charCodeAt(end)) %
          ROLLING_MODULUS;
      }
    }
  }
  // Longer first where ranges overlap, as with known values.
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const range of found) {
    const last = merged.at(-1);
    if (last !== undefined && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** Masks secret values in text ralph writes for people (logs, records, summaries, errors). */
export class Redactor {
  private readonly pattern: RegExp | undefined;
  /** Length of the longest form masked: text cut at any point keeps whole any shorter one. */
  readonly longest: number;

  /**
   * `secrets` are values known here; `fingerprints` are what sessions recorded of the secrets
   * their agents had, so that a transcript is masked whichever shell renders it.
   */
  private readonly values: string[];

  constructor(
    secrets: Iterable<string>,
    private readonly fingerprints: readonly SecretFingerprints[] = [],
  ) {
    this.values = [...secrets];
    const forms = new Set<string>();
    for (const secret of this.values) {
      if (secret.length >= MIN_SECRET_LENGTH)
        for (const form of secretForms(secret)) forms.add(form);
    }
    // Longest first, so a secret's longer encoding is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    const printed = fingerprints.flatMap((f) => f.forms.map((form) => form.length));
    this.longest = Math.max(sorted[0]?.length ?? 0, ...printed);
    this.pattern =
      sorted.length === 0
        ? undefined
        : new RegExp(
            sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
            'g',
          );
  }

  /** The same masks, and those of the secrets a session recorded fingerprints of. */
  withFingerprints(fingerprints: SecretFingerprints | undefined): Redactor {
    if (fingerprints === undefined || fingerprints.forms.length === 0) return this;
    return new Redactor(this.values, [...this.fingerprints, fingerprints]);
  }

  /** The text with every known secret form replaced by `***`. */
  redact(text: string): string {
    const known = this.pattern === undefined ? text : text.replace(this.pattern, '***');
    if (this.fingerprints.length === 0) return known;
    let masked = '';
    let at = 0;
    for (const [start, end] of fingerprintMatches(known, this.fingerprints)) {
      masked += `${known.slice(at, start)}***`;
      at = end;
    }
    return masked + known.slice(at);
  }

  /**
   * Redacts text that more may follow: all but a tail a secret could still run into. Returns
   * the redacted head and the tail, as it is, to be put before what comes next.
   */
  redactHead(text: string): { head: string; tail: string } {
    if (this.pattern === undefined && this.fingerprints.length === 0)
      return { head: text, tail: '' };
    let cut = Math.max(0, text.length - (this.longest - 1));
    const found: [number, number][] =
      this.pattern === undefined
        ? []
        : [...text.matchAll(this.pattern)].map((m) => [m.index, m.index + m[0].length]);
    found.push(...fingerprintMatches(text, this.fingerprints));
    // A secret across the cut is taken whole into the head.
    for (const [start, end] of found) if (start < cut && end > cut) cut = end;
    return { head: this.redact(text.slice(0, cut)), tail: text.slice(cut) };
  }

  /** A JSON-safe copy of a value with every string redacted. */
  redactValue<T>(value: T): T {
    if (this.pattern === undefined) return value;
    return JSON.parse(this.redact(JSON.stringify(value))) as T;
  }
}
