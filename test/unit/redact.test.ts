import { describe, expect, it } from 'vitest';
import { Redactor, fingerprintSecrets } from '../../src/lib/redact.js';

const SECRET = 'deploy-token-0123456789abcdef';

describe('a redactor with the fingerprints a session recorded', () => {
  const prints = fingerprintSecrets([SECRET]);

  it('keeps no value, and masks the secret in each form it may be written in', () => {
    expect(JSON.stringify(prints)).not.toContain(SECRET);
    const redactor = new Redactor(['another-key-of-this-shell']).withFingerprints(prints);
    const base64 = Buffer.from(SECRET).toString('base64');
    const text = `token=${SECRET}; "${JSON.stringify(SECRET).slice(1, -1)}" ${base64} and another-key-of-this-shell`;
    expect(redactor.redact(text)).toBe('token=***; "***" *** and ***');
    expect(redactor.redact('nothing secret here')).toBe('nothing secret here');
  });

  it('keeps a secret whole across the cut of text that more may follow', () => {
    const redactor = new Redactor([]).withFingerprints(prints);
    const filler = 'x'.repeat(1024 * 1024);
    const text = `${filler}${SECRET.slice(0, 10)}`;
    const { head, tail } = redactor.redactHead(text);
    expect(head + tail).toBe(text);
    // The part of the secret written so far stays in the tail, to be masked with what follows.
    expect(tail.endsWith(SECRET.slice(0, 10))).toBe(true);
    expect(head).not.toContain('deploy');
    expect(redactor.redact(`${tail}${SECRET.slice(10)} after`)).toMatch(/x\*\*\* after$/);
  });
});
