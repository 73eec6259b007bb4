import fsp from 'node:fs/promises';
import path from 'node:path';
import { buildArgv, type Argv } from '../agent/argv.js';
import { buildAgentEnv } from '../agent/env.js';
import { resolveSettings, type ResolvedSettings } from '../agent/settings.js';
import type { Workspace } from '../config/workspace.js';
import { isErrnoException } from '../lib/errors.js';
import type { Item } from '../queue/item.js';
import { render } from '../template/render.js';

/** Everything needed to spawn one session, decided before anything runs. */
export interface PreparedSession {
  settings: ResolvedSettings;
  prompt: string;
  argv: Argv;
  env: Record<string, string>;
  secrets: string[];
  resume?: string;
}

/** A preparation that failed: the item's fault or the workspace's, never the agent's. */
export interface PreparationError {
  reason: string;
}

/** What the session is told about itself. */
export interface SessionIdentity {
  sessionId: string;
  iteration: number;
  promptFile: string;
}

async function readBody(item: Item, root: string): Promise<string | PreparationError> {
  if (item.bodyFile === undefined) return item.body ?? '';
  const file = path.resolve(root, item.bodyFile);
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (error) {
    const code = isErrnoException(error) ? error.code : String(error);
    return { reason: `bodyFile ${file} cannot be read (${code})` };
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fsp.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Renders the bootstrap prompt and builds the command and environment of one session.
 * Anything wrong here (unknown placeholder, missing work dir or body file) is reported before
 * a process is spawned.
 */
export async function prepareSession(
  workspace: Workspace,
  item: Item,
  identity: SessionIdentity,
  parentEnv: Readonly<Record<string, string | undefined>>,
  budgetLeftUsd?: number,
): Promise<PreparedSession | PreparationError> {
  const { config, paths } = workspace;
  const settings = resolveSettings(config.defaults, [item], (p) => path.resolve(workspace.root, p));
  // The run's budget is enforced inside the session too, through --max-budget-usd.
  if (budgetLeftUsd !== undefined)
    settings.maxBudgetUsd = Math.min(settings.maxBudgetUsd, budgetLeftUsd);
  if (!(await isDirectory(settings.workDir))) {
    return { reason: `work dir ${settings.workDir} does not exist` };
  }
  const body = await readBody(item, workspace.root);
  if (typeof body !== 'string') return body;
  let template: string;
  try {
    template = await fsp.readFile(paths.bootstrap, 'utf8');
  } catch (error) {
    const code = isErrnoException(error) ? error.code : String(error);
    return { reason: `bootstrap template ${paths.bootstrap} cannot be read (${code})` };
  }
  const values: Record<string, string> = {
    ...config.vars,
    ...item.vars,
    SESSION_ID: identity.sessionId,
    ITERATION: String(identity.iteration),
    WORK_ITEM: `${item.title} (${item.id})`,
    RIG: config.rig,
    ITEM_ID: item.id,
    ITEM_TITLE: item.title,
    ITEM_BODY: body,
    INTERRUPT_FILE: paths.interruptFile,
    WORK_DIR: settings.workDir,
    ATTEMPT: String(item.attempts),
    PREVIOUS_ERROR: item.lastError ?? '',
  };
  const rendered = render(template, values);
  if (!rendered.ok) {
    return {
      reason: `${paths.bootstrap}: unknown placeholder${rendered.unknown.length > 1 ? 's' : ''} ${rendered.unknown
        .map((name) => `{{${name}}}`)
        .join(', ')} (built-in names, "vars" in ralph.config.json and the item's "vars" are known)`,
    };
  }
  // Set only while the item waits to be resumed after an interruption.
  const resume = item.claudeSessionId;
  const { env, secrets } = buildAgentEnv(parentEnv, {
    deny: config.env.deny,
    allow: config.env.allow,
    session: {
      sessionId: identity.sessionId,
      itemId: item.id,
      iteration: identity.iteration,
      interruptFile: paths.interruptFile,
    },
  });
  const argv = buildArgv({
    command: config.claude.command,
    initialPrompt: config.claude.initialPrompt,
    appendSystemPromptFile: identity.promptFile,
    sessionId: identity.sessionId,
    resume,
    settings,
    settingsFile: config.claude.settings,
    yolo: config.yolo,
  });
  return { settings, prompt: rendered.text, argv, env, secrets, resume };
}
