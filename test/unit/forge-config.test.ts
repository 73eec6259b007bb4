// The `forge` settings as ralph.config.json gives them: defaults, and refusals naming the field.
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config/schema.js';

const issues = (config: unknown) => {
  const parsed = ConfigSchema.safeParse(config);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join('.'), i.message]);
};

describe('forge settings', () => {
  it('default to GitHub, origin, GITHUB_TOKEN, no merge, two fix rounds and two hours of checks', () => {
    const config = ConfigSchema.parse({ forge: { kind: 'github' } });
    expect(config.forge).toMatchObject({
      apiUrl: 'https://api.github.com',
      remote: 'origin',
      tokenEnv: 'GITHUB_TOKEN',
      base: 'main',
      merge: 'none',
      requireApproval: false,
      reviews: false,
      checks: { timeout: 7200, maxFixRounds: 2, required: [], poll: 30 },
    });
    expect(config.forge?.pr).toBeUndefined();
    expect(ConfigSchema.parse({}).forge).toBeUndefined();
  });

  it("refuse a token where its variable's name belongs, a URL as the remote, and a pr kind that contradicts landing", () => {
    expect(issues({ forge: { kind: 'github', tokenEnv: 'ghp_0123-4567' } })).toEqual([
      ['forge.tokenEnv', 'the name of an environment variable, not a token'],
    ]);
    expect(
      issues({ forge: { kind: 'github', remote: 'https://github.com/acme/app' } })[0]?.[0],
    ).toBe('forge.remote');
    expect(issues({ forge: { kind: 'github', pr: 'landed' } })[0]).toEqual([
      'forge.pr',
      expect.stringContaining('landing is off'),
    ]);
    expect(
      issues({ land: { enabled: true }, forge: { kind: 'github', pr: 'item' } })[0]?.[1],
    ).toContain('"pr": "landed"');
    expect(issues({ forge: { kind: 'gitea' } })[0]?.[0]).toBe('forge.kind');
    expect(issues({ forge: { kind: 'github', merge: 'fast-forward' } })[0]?.[0]).toBe(
      'forge.merge',
    );
  });
});
