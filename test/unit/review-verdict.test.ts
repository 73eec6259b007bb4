// A reviewer's answer is read tolerantly of its form and never of its content: whatever is not
// a whole, consistent verdict is invalid, and an invalid verdict never approves.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readVerdict, VERDICT_JSON_SCHEMA } from '../../src/review/verdict.js';

const CRITERIA = ['the login test passes 20 runs in a row', 'no sleep is added'];

const approve = {
  criteria: [
    { id: 1, verdict: 'PASS', evidence: 'test/login.test.js:12 retries the fixture' },
    { id: 2, verdict: 'PASS', evidence: 'git diff shows no setTimeout' },
  ],
  findings: [{ severity: 'minor', place: 'src/login.js:3', finding: 'a stale comment' }],
  overall: 'approve',
  summary: 'The fix holds.',
};

describe('a reviewer’s verdict', () => {
  it('is read from prose around a fenced block, in any case of its words', () => {
    const text = `I looked at the diff.\n\n\`\`\`json\n${JSON.stringify({
      ...approve,
      criteria: approve.criteria.map((c) => ({ ...c, verdict: c.verdict.toLowerCase() })),
      overall: 'Approved',
    })}\n\`\`\`\nThat is all.`;
    const read = readVerdict(text, CRITERIA);
    expect(read).toMatchObject({ kind: 'verdict', verdict: { overall: 'approve' } });
    if (read.kind === 'verdict')
      expect(read.verdict.criteria.map((c) => c.verdict)).toEqual(['PASS', 'PASS']);
  });

  it('is read from a bare object, the last one when there are several', () => {
    const changes = { ...approve, overall: 'request changes' };
    const text = `First thought: ${JSON.stringify(approve)}\nOn second look: ${JSON.stringify(changes)}`;
    expect(readVerdict(text, CRITERIA)).toMatchObject({
      kind: 'verdict',
      verdict: { overall: 'request_changes' },
    });
  });

  it.each([
    ['prose alone', 'Looks good to me!', /no JSON object/],
    ['malformed JSON', '{"overall": "approve", "criteria": [', /no JSON object/],
    ['an unknown overall', JSON.stringify({ ...approve, overall: 'maybe' }), /not a verdict/],
    [
      'a criterion the item does not have',
      JSON.stringify({
        ...approve,
        criteria: [...approve.criteria, { id: 3, verdict: 'PASS', evidence: 'x' }],
      }),
      /names criterion 3, and the item has only 2/,
    ],
    [
      'a criterion left out',
      JSON.stringify({ ...approve, criteria: approve.criteria.slice(0, 1) }),
      /no verdict for criterion 2/,
    ],
    [
      'a criterion answered twice',
      JSON.stringify({
        ...approve,
        criteria: [approve.criteria[0], approve.criteria[0], approve.criteria[1]],
      }),
      /criterion 1 twice/,
    ],
    [
      'an approval with a failed criterion',
      JSON.stringify({
        ...approve,
        criteria: [approve.criteria[0], { id: 2, verdict: 'FAIL', evidence: 'a sleep at line 9' }],
      }),
      /approves while criterion 2 fails/,
    ],
    [
      'an approval with a blocking finding',
      JSON.stringify({
        ...approve,
        findings: [{ severity: 'blocker', place: 'src/a.js:1', finding: 'deletes the tests' }],
      }),
      /approves with a blocking finding/,
    ],
    [
      'evidence left empty',
      JSON.stringify({
        ...approve,
        criteria: [{ id: 1, verdict: 'PASS', evidence: ' ' }, approve.criteria[1]],
      }),
      /not a verdict/,
    ],
  ])('is invalid for %s, which never approves', (_name, text, reason) => {
    const read = readVerdict(text, CRITERIA);
    expect(read.kind).toBe('invalid');
    if (read.kind === 'invalid') expect(read.reason).toMatch(reason);
  });

  it('takes a verdict without criteria for an item that has none', () => {
    const verdict = { overall: 'approve', findings: [] };
    expect(readVerdict(JSON.stringify(verdict), [])).toMatchObject({ kind: 'verdict' });
    expect(readVerdict(JSON.stringify(approve), [])).toMatchObject({ kind: 'invalid' });
  });

  it('has a strict JSON Schema a CLI holds its answer to, which readVerdict reads', () => {
    const validate = new Ajv2020({ strict: true }).compile(VERDICT_JSON_SCHEMA);
    expect(validate(approve), JSON.stringify(validate.errors)).toBe(true);
    expect(readVerdict(JSON.stringify(approve), CRITERIA).kind).toBe('verdict');
    expect(validate({ ...approve, overall: 'maybe' })).toBe(false);
    expect(validate({ ...approve, extra: 1 })).toBe(false);
    // Strict as OpenAI's structured outputs want it: every object closed, every key required.
    const objects: Record<string, unknown>[] = [];
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (record.type === 'object') objects.push(record);
      Object.values(record).forEach(walk);
    };
    walk(VERDICT_JSON_SCHEMA);
    expect(objects).toHaveLength(3);
    for (const object of objects) {
      expect(object.additionalProperties).toBe(false);
      expect(object.required).toEqual(Object.keys(object.properties as object));
    }
  });
});
