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
});
