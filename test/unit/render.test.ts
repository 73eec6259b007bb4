import { describe, expect, it } from 'vitest';
import { placeholders, render } from '../../src/template/render.js';

describe('render', () => {
  it('replaces every placeholder, spaces inside braces allowed', () => {
    expect(render('Hi {{NAME}}, {{ NAME }} again; {{X}}', { NAME: 'Ada', X: '1' })).toEqual({
      ok: true,
      text: 'Hi Ada, Ada again; 1',
    });
  });

  it('reports every unknown placeholder instead of leaving it', () => {
    expect(render('{{A}} {{B}} {{C}} {{B}}', { A: 'a' })).toEqual({
      ok: false,
      unknown: ['B', 'C'],
    });
    expect(render('{{#each items}}', {})).toEqual({ ok: false, unknown: ['#each items'] });
  });

  it('T29 inserts values literally, with no second expansion', () => {
    const values = {
      BODY: '{{SECRET}} ${process.env.HOME} <%= 7*7 %> {{#each}} $& $1',
      SECRET: 'should-not-appear',
    };
    const result = render('[{{BODY}}]', values);
    expect(result).toEqual({ ok: true, text: `[${values.BODY}]` });
  });

  it('lists placeholders in order of first use', () => {
    expect(placeholders('{{B}} {{A}} {{B}}')).toEqual(['B', 'A']);
  });

  it('keeps a section when its value has text, and leaves it out, lines and all, when not', () => {
    const template = [
      'Task',
      '',
      '{{#ERROR}}',
      '## Previous attempt',
      '',
      '{{ERROR}}',
      '',
      '{{/ERROR}}',
      '  {{#NOTE}}  ',
      'Note: {{NOTE}}',
      '{{/NOTE}}',
      '## How to work',
    ].join('\n');
    expect(render(template, { ERROR: 'exit 1', NOTE: ' \n' })).toEqual({
      ok: true,
      text: 'Task\n\n## Previous attempt\n\nexit 1\n\n## How to work',
    });
    expect(render(template, { ERROR: '', NOTE: 'hi' })).toEqual({
      ok: true,
      text: 'Task\n\nNote: hi\n## How to work',
    });
  });

  it('keeps the text around a section in a line of its own, and nests sections', () => {
    expect(render('a {{#X}}[{{X}}{{#Y}}/{{Y}}{{/Y}}]{{/X}} b', { X: 'x', Y: '' })).toEqual({
      ok: true,
      text: 'a [x] b',
    });
    expect(render('a {{#X}}[{{X}}{{#Y}}/{{Y}}{{/Y}}]{{/X}} b', { X: 'x', Y: 'y' })).toEqual({
      ok: true,
      text: 'a [x/y] b',
    });
    expect(render('a {{# X }}x{{/ X }} b', { X: '' })).toEqual({ ok: true, text: 'a  b' });
  });

  it("needs a value for a section's name, and reads a marker without its pair as unknown", () => {
    expect(render('{{#A}}{{B}}{{/A}}', {})).toEqual({ ok: false, unknown: ['A', 'B'] });
    expect(render('{{#A}} and no end', { A: 'a' })).toEqual({ ok: false, unknown: ['#A'] });
    expect(render('{{#A}}a{{/B}}{{/A}}', { A: 'a', B: 'b' })).toEqual({
      ok: false,
      unknown: ['/B'],
    });
    expect(placeholders('{{X}} {{#A}}{{Y}}{{/A}} {{X}}')).toEqual(['X', 'A', 'Y']);
  });

  it('inserts values in a kept section literally: a marker in a value is text', () => {
    const values = { BODY: '{{#BODY}}{{/BODY}} {{SECRET}}', SECRET: 'no' };
    expect(render('{{#BODY}}[{{BODY}}]{{/BODY}}', values)).toEqual({
      ok: true,
      text: `[${values.BODY}]`,
    });
  });
});
