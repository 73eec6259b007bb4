import { buildAgentEnv } from './env.js';
import { databaseSecrets, databaseUrl } from '../config/database-url.js';
import type { Workspace } from '../config/workspace.js';
import { Redactor } from '../lib/redact.js';

/** The secret values of an environment, as the agent's filter sees them. */
export function secretsOf(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const { secrets } = buildAgentEnv(env, {
    deny: workspace.config.env.deny,
    allow: workspace.config.env.allow,
    credentials: [],
    session: { sessionId: '', itemId: '', iteration: 0, interruptFile: '' },
  });
  return [...secrets, ...databaseSecrets(databaseUrl(workspace.config, env))];
}

/** A redactor for what a command shows people. */
export function redactorFor(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
): Redactor {
  return new Redactor(secretsOf(workspace, env));
}
