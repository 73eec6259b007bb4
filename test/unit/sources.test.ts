// Sources of work: a markdown plan read by a CommonMark parser, a prd.json, and what a second
// import of the same source does to the queue (nothing twice).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ItemSchema, type Item } from '../../src/queue/item.js';
import { SourceError, type SourceEntry } from '../../src/sources/entry.js';
import { planEntries, planText } from '../../src/sources/plan.js';
import { prdEntries } from '../../src/sources/prd.js';
import { planImport } from '../../src/workspace/import.js';

const fixture = (name: string) =>
  fs.readFileSync(fileURLToPath(new URL(`../fixtures/plans/${name}`, import.meta.url)));

const plan = (name: string) => planEntries(name, planText(name, fixture(name)));
const prd = (name: string) => prdEntries(name, fixture(name).toString('utf8'));

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return (error as Error).message;
  }
  throw new Error('it did not throw');
};

describe('a markdown plan', () => {
  it('takes every box in order, open or done, with its heading, body and line; code is not a task', () => {
    const entries = plan('night.md');
    expect(entries.map((e) => [e.title, e.state === 'open', e.source.line, e.vars])).toEqual([
      ['Fix the flaky login test', true, 5, { PLAN_HEADING: 'The login page' }],
      ['Add a retry to the fixture', true, 13, { PLAN_HEADING: 'The login page' }],
      ['Write the login page', false, 16, { PLAN_HEADING: 'The login page' }],
      ['Style the login page', true, 17, { PLAN_HEADING: 'The login page' }],
      ['Document `--json` in the README (日本語)', true, 21, { PLAN_HEADING: 'Docs — ünïcode ✓' }],
      ['Translate the README', false, 22, { PLAN_HEADING: 'Docs — ünïcode ✓' }],
      ['Fix the flaky login test', true, 23, { PLAN_HEADING: 'Docs — ünïcode ✓' }],
    ]);
    // Its indented lines, without the tasks nested in it nor its plain sub-bullets (its
    // criteria); a code block kept whole.
    expect(entries[0]?.body).toBe(
      [
        'It fails one run in ten on CI.',
        '',
        '```sh',
        '- [ ] this line is code, not a task',
        'npm test -- login',
        '```',
      ].join('\n'),
    );
    expect(entries[0]?.criteria).toEqual(['the login test passes ten runs in a row']);
    expect(entries[1]?.criteria).toEqual([]);
    expect(entries[1]?.body).toBe('with a limit of three');
    // The same title under two headings: two keys.
    expect(new Set(entries.map((e) => e.source.key)).size).toBe(entries.length);
    expect(entries[0]?.id).toBe('fix-the-flaky-login-test');
  });

  it('refuses a file that is not UTF-8, naming its line', () => {
    expect(thrown(() => planText('latin1.md', fixture('latin1.md')))).toBe(
      'latin1.md:2: not UTF-8 text; save the plan as UTF-8',
    );
  });

  it('refuses a task whose first line is longer than a title, naming its line', () => {
    const text = `# Plan\n\n- [ ] short\n- [ ] ${'x'.repeat(201)}\n`;
    expect(thrown(() => planEntries('long.md', text))).toMatch(
      /^long\.md:4: the task's first line is 201 characters, at most 200/,
    );
  });

  it('has no task in a list without boxes', () => {
    expect(planEntries('plain.md', '- one\n- two\n\n[ ] not in a list\n')).toEqual([]);
  });
});

describe('a prd.json', () => {
  it('keeps the stories that do not pass, their order, criteria and notes', () => {
    const entries = prd('prd.json');
    expect(entries.map((e) => [e.id, e.state === 'open', e.priority, e.vars])).toEqual([
      ['us-001', false, -1, { STORY_ID: 'US-001' }],
      ['us-002', true, -2, { STORY_ID: 'US-002' }],
      ['us-003', true, -3, { STORY_ID: 'US-003' }],
    ]);
    expect(entries[1]?.body).toBe(
      [
        "As a user, I want to see each task's priority at a glance.",
        '',
        'Notes: Use the existing badge component.',
      ].join('\n'),
    );
    expect(entries[1]?.criteria).toEqual([
      'Each card shows a coloured badge',
      'Verify in the browser',
    ]);
    expect(entries[2]?.body).toBe('As a user, I want to see only the urgent ones.');
  });

  it('refuses JSON that does not parse, naming its line and column', () => {
    expect(thrown(() => prd('prd-bad-json.json'))).toMatch(
      /^prd-bad-json\.json:3:\d+: not valid JSON/,
    );
  });

  it('refuses a story without a title or with a wrong field, naming its line and path', () => {
    const message = thrown(() => prd('prd-bad-field.json'));
    expect(message).toContain('line 4 userStories.1.title');
    expect(message).toContain('line 6 userStories.1.passes');
  });
});

describe('importing again', () => {
  const options = {
    defaults: {},
    chain: false,
    now: Date.parse('2026-11-26T00:00:00Z'),
    names: String,
  };
  const apply = (items: Item[], entries: SourceEntry[], chain = false) => {
    const steps = planImport(entries, items, { ...options, chain });
    const next = [...items];
    for (const step of steps) {
      if (step.kind === 'add') next.push(step.item);
      if (step.kind === 'update')
        next.splice(
          next.findIndex((i) => i.id === step.item.id),
          1,
          { ...step.item, ...step.fields },
        );
      if (step.kind === 'cancel' || step.kind === 'complete')
        next.splice(
          next.findIndex((i) => i.id === step.item.id),
          1,
          { ...step.item, status: step.kind === 'cancel' ? 'cancelled' : 'done' },
        );
    }
    return { steps: steps.map((s) => s.kind), items: next };
  };

  it('adds nothing twice, updates what waits, ends what its source closed: done when done, cancelled when dropped', () => {
    const first = apply([], plan('night.md'));
    expect(first.steps).toEqual(['add', 'add', 'keep', 'add', 'add', 'keep', 'add']);
    expect(first.items.map((i) => i.id)).toEqual([
      'fix-the-flaky-login-test',
      'add-a-retry-to-the-fixture',
      'style-the-login-page',
      'document-json-in-the-readme',
      'fix-the-flaky-login-test-2',
    ]);
    first.items.forEach((item) => expect(ItemSchema.safeParse(item).success).toBe(true));
    expect(apply(first.items, plan('night.md')).steps.filter((s) => s !== 'keep')).toEqual([]);

    const edited = plan('night.md').map((e, n) =>
      n === 0
        ? { ...e, body: 'Now it fails every run.' }
        : n === 1
          ? { ...e, state: 'done' as const }
          : n === 3
            ? { ...e, state: 'dropped' as const }
            : e,
    );
    const second = apply(first.items, edited);
    expect(second.steps).toEqual(['update', 'complete', 'keep', 'cancel', 'keep', 'keep', 'keep']);
    expect(second.items[0]?.body).toBe('Now it fails every run.');
    expect(second.items[1]?.status).toBe('done');
    expect(second.items[2]?.status).toBe('cancelled');
    // A running or finished item is its runner's: the source changes nothing of it.
    const running = first.items.map((i) => ({ ...i, status: 'running' as const }));
    expect(new Set(apply(running, edited).steps)).toEqual(new Set(['keep']));
  });

  it('chains each new item to the open one before it, new or imported before', () => {
    const [a, b, c] = prd('prd.json').slice(0, 3) as [SourceEntry, SourceEntry, SourceEntry];
    const once = apply([], [b], true);
    const twice = apply(once.items, [a, b, c], true);
    expect(twice.items.map((i) => [i.id, i.dependsOn])).toEqual([
      ['us-002', []],
      ['us-003', ['us-002']],
    ]);
  });
});
