import { QUEUE_DATABASE_VARIABLE } from '../config/database-url.js';

/** Variable names withheld from the agent: the usual names of secrets. `*` matches any run. */
export const DENIED_VARIABLES = [
  '*_SECRET',
  '*_PASSWORD',
  '*_CREDENTIAL',
  '*_CREDENTIALS',
  '*_KEY',
  '*_TOKEN',
  '*_API_KEY',
  '*DATABASE_URL',
  'REDIS_URL',
];

/**
 * Variables that never reach the agent: one that would change claude's behaviour under ralph,
 * and the coverage dumps of ralph's own processes (the agent's are not ralph's to collect).
 */
const ALWAYS_REMOVED = ['CLAUDECODE', 'NODE_V8_COVERAGE'];

/** The name of the variable that marks every process of one session. */
export const SESSION_MARKER = 'RALPH_SESSION_ID';

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

/** The values ralph adds for the agent's session. */
export interface SessionVariables {
  sessionId: string;
  itemId: string;
  iteration: number;
  interruptFile: string;
}

/** The agent's environment, and the secret values that must never appear in what ralph writes. */
export interface AgentEnvironment {
  env: Record<string, string>;
  secrets: string[];
  /** The names of the secret-looking variables passed all the same (credentials, `env.allow`). */
  passedSecrets: string[];
}

/**
 * Builds the agent's environment: the runner's minus the denylist, then the allowlist re-added
 * (the chosen CLI's own credentials and the configured names), then the session variables.
 */
export function buildAgentEnv(
  parent: Readonly<Record<string, string | undefined>>,
  options: {
    deny: readonly string[];
    allow: readonly string[];
    /** The credentials the chosen CLI authenticates with: passed back after the denylist. */
    credentials: readonly string[];
    session: SessionVariables;
  },
): AgentEnvironment {
  const denied = [...DENIED_VARIABLES, ...options.deny].map(patternToRegExp);
  const allowed = new Set([...options.credentials, ...options.allow]);
  const env: Record<string, string> = {};
  const secrets: string[] = [];
  const passedSecrets: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || ALWAYS_REMOVED.includes(name)) continue;
    const isSecret = denied.some((pattern) => pattern.test(name));
    if (isSecret) secrets.push(value);
    if (name === QUEUE_DATABASE_VARIABLE) continue;
    if (!isSecret || allowed.has(name)) env[name] = value;
    if (isSecret && allowed.has(name)) passedSecrets.push(name);
  }
  const { sessionId, itemId, iteration, interruptFile } = options.session;
  Object.assign(env, {
    SESSION_ID: sessionId,
    [SESSION_MARKER]: sessionId,
    HARNESS_SESSION: 'true',
    INTERRUPT_FILE: interruptFile,
    ITERATION: String(iteration),
    RALPH_ITEM_ID: itemId,
  });
  return { env, secrets, passedSecrets: passedSecrets.sort() };
}
