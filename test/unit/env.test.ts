import { describe, expect, it } from 'vitest';
import { claude } from '../../src/agent/clis/claude.js';
import { buildAgentEnv } from '../../src/agent/env.js';
import { Redactor, secretForms } from '../../src/lib/redact.js';

const session = {
  sessionId: 'sess-1',
  itemId: 'item-1',
  iteration: 3,
  interruptFile: '/ws/state/interrupt-request.txt',
};

describe('buildAgentEnv', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    GITHUB_TOKEN: 'ghp_secret_token_value',
    AWS_SECRET_ACCESS_KEY: 'aws-secret-value-123',
    DATABASE_URL: 'postgres://u:p@h/db',
    REDIS_URL: 'redis://:pw@h',
    MY_API_KEY: 'my-api-key-value',
    DB_PASSWORD: 'hunter2hunter2',
    ANTHROPIC_API_KEY: 'sk-ant-real-key',
    CLAUDE_CODE_OAUTH_TOKEN: 'oauth-token-value',
    CLAUDECODE: '1',
    AWS_PROFILE: 'dev',
  };

  it('withholds secrets, re-adds claude credentials, removes CLAUDECODE, adds the session', () => {
    const { env, secrets } = buildAgentEnv(parent, {
      deny: [],
      allow: [],
      credentials: claude.credentials,
      session,
    });
    expect(Object.keys(env).sort()).toEqual(
      [
        'PATH',
        'HOME',
        'AWS_PROFILE',
        'ANTHROPIC_API_KEY',
        'CLAUDE_CODE_OAUTH_TOKEN',
        'SESSION_ID',
        'RALPH_SESSION_ID',
        'HARNESS_SESSION',
        'INTERRUPT_FILE',
        'ITERATION',
        'RALPH_ITEM_ID',
      ].sort(),
    );
    expect(env).toMatchObject({
      RALPH_SESSION_ID: 'sess-1',
      SESSION_ID: 'sess-1',
      HARNESS_SESSION: 'true',
      ITERATION: '3',
      RALPH_ITEM_ID: 'item-1',
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        'ghp_secret_token_value',
        'postgres://u:p@h/db',
        'sk-ant-real-key',
        'oauth-token-value',
      ]),
    );
    expect(secrets).not.toContain('dev');
  });

  it('passes configured names and withholds configured patterns', () => {
    const { env } = buildAgentEnv(parent, {
      deny: ['AWS_*'],
      allow: ['GITHUB_TOKEN'],
      credentials: claude.credentials,
      session,
    });
    expect(env.GITHUB_TOKEN).toBe('ghp_secret_token_value');
    expect(env.AWS_PROFILE).toBeUndefined();
  });
});

describe('Redactor', () => {
  const secret = 'sk-ant-api03-abcdefghijklmnop';
  const redactor = new Redactor([secret, 'xy']);

  it('masks the raw value and its usual encodings', () => {
    const forms = [
      secret,
      JSON.stringify(`a"${secret}`).slice(1, -1),
      encodeURIComponent(`p=${secret}&`),
      Buffer.from(secret).toString('base64'),
      Buffer.from(`x${secret}`).toString('base64'),
      Buffer.from(`xy${secret}`).toString('base64'),
    ];
    for (const form of forms) {
      const masked = redactor.redact(`before ${form} after`);
      expect(masked).toContain('***');
      for (const piece of secretForms(secret)) expect(masked).not.toContain(piece);
    }
  });

  it('leaves short values and ordinary text alone', () => {
    expect(redactor.redact('xy is fine')).toBe('xy is fine');
  });

  it('redacts inside structured values', () => {
    expect(redactor.redactValue({ cmd: ['claude', `--key=${secret}`] })).toEqual({
      cmd: ['claude', '--key=***'],
    });
  });
});
