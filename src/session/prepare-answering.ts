import { NO_ENVIRONMENT } from '../environment/config-schema.js';
import type { AgentCli } from '../agent/clis/cli.js';
import { cliNamed, cliRefusal, commandOf } from '../agent/clis/index.js';
import { resolveSettings, type ResolvedSettings } from '../agent/settings.js';
import type { SessionAsk } from '../stage/sessions.js';
import type { Workspace } from '../config/workspace.js';
import type { Item } from '../queue/item.js';
import { assemblePrompt } from '../prompt/assemble.js';
import type { PreparationError } from './preparation-error.js';
import { sessionEnv, type PreparedSession, type SessionIdentity } from './prepare.js';

/** What a session a stage asks for may use: reading, never writing. */
const READING_TOOLS = ['Read', 'Glob', 'Grep'];
const WRITING_TOOLS = ['Edit', 'Write', 'NotebookEdit'];

/**
 * The writing tools an asked session is refused that its CLI has: a rule for a tool it lacks
 * (pi and opencode have no notebook tool) is one it cannot hold, and nothing to refuse.
 */
function refusable(cli: AgentCli, settings: ResolvedSettings): string[] {
  return WRITING_TOOLS.filter(
    (rule) =>
      cli.refusals({ ...settings, tools: undefined, allowedTools: [], disallowedTools: [rule] }, {})
        .length === 0,
  );
}

/** What a session a stage asks for is made from. */
export interface AnsweringRequest extends SessionAsk<unknown> {
  workspace: Workspace;
  item: Item;
  identity: SessionIdentity;
  parentEnv: Readonly<Record<string, string | undefined>>;
  budgetLeftUsd?: number;
}

/**
 * A session a stage asks for (a reviewer): a fresh conversation on its own CLI that only reads
 * the item's work. Out of a sandbox its CLI's read-only mode holds it (`plan`, and no writing
 * tool); in one, the work is mounted read-only and the CLI's own mode (codex's own sandbox
 * cannot run inside ralph's) refuses what is not a reading tool.
 */
export function prepareAnswering(request: AnsweringRequest): PreparedSession | PreparationError {
  const { workspace, item, identity, sandbox, kind } = request;
  const { config } = workspace;
  const base = resolveSettings(config.defaults, [], (p) => p);
  const cli = cliNamed(request.cli);
  const settings: ResolvedSettings = {
    ...base,
    cli: request.cli,
    model: request.model,
    workDir: request.workDir,
    timeoutSeconds: request.timeoutSeconds,
    // Offered its reading tools alone (a CLI that can be told so): what it may not use is not
    // sent in every request.
    tools: READING_TOOLS,
    allowedTools: READING_TOOLS,
    disallowedTools: refusable(cli, base),
    permissionMode: sandbox.kind === 'none' ? 'plan' : 'dontAsk',
    lean: false,
  };
  if (request.budgetLeftUsd !== undefined)
    settings.maxBudgetUsd = Math.min(settings.maxBudgetUsd, request.budgetLeftUsd);
  const refusal = cliRefusal(settings, [], sandbox);
  if (refusal !== undefined) return { reason: `the ${kind.role}: ${refusal}`, scope: 'workspace' };
  const { env, secrets, passedSecrets } = sessionEnv(request, cli);
  const prompt = assemblePrompt({
    identity: kind.identity,
    item: [
      `Work item: ${item.id} — ${item.title}`,
      `Working directory (read-only): ${request.workDir}`,
    ].join('\n'),
    context: [],
    bootstrap: request.prompt,
  });
  const command = cli.command({
    command: commandOf(config, cli.name),
    initialPrompt: kind.start,
    title: `${kind.task} of ${item.title} (${item.id})`,
    promptFile: identity.files.prompt,
    system: { file: identity.files.system, text: prompt.system, assignment: prompt.assignment },
    policyFile: identity.files.policy,
    inputFile: identity.files.input,
    sessionId: identity.sessionId,
    settings,
    settingsFile: config.clis.claude.settings,
    // An asked session never skips its permission checks, whatever the authors do.
    yolo: false,
    sandboxed: sandbox.kind !== 'none',
    outputSchema: { file: identity.files.schema, schema: kind.outputSchema },
    env,
  });
  Object.assign(env, command.env);
  return {
    settings,
    work: { git: false, gates: [], sandbox, review: false, environment: NO_ENVIRONMENT },
    worktree: request.worktree,
    prompt,
    cli,
    argv: command.argv,
    cliFiles: command.files ?? [],
    cliDirs: command.dirs ?? [],
    env,
    secrets,
    passedSecrets,
    fallback: { clis: [], afterSeconds: 0, handoverChars: 0 },
    role: kind.role,
  };
}
