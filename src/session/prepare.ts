import type { AskedRole } from '../lib/session-roles.js';
import { slotVariables, type Slot } from './slots.js';
import { environmentWanted, type EnvironmentWanted } from './environment.js';
import { withRepositoryEnvironment } from '../environment/repository.js';
import { undeliveredMessages } from '../queue/transitions.js';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Argv } from '../agent/argv.js';
import type { SessionFiles } from '../archive/paths.js';
import { gateProgramProblem } from '../gates/gates.js';
import { bubblewrapOf, probeSandbox } from '../sandbox/probe.js';
import { cliNamed, cliRefusal, commandOf, type AgentCli } from '../agent/clis/index.js';
import { buildAgentEnv } from '../agent/env.js';
import {
  fallbackRefusal,
  namedWorkDir,
  resolveFallback,
  resolveSettings,
  type FallbackSettings,
  type ResolvedSettings,
} from '../agent/settings.js';
import { resolveWork, type WorkSettings } from './work.js';
import { SessionRecordSchema, type SessionRecord } from '../archive/record.js';
import { sessionFiles } from '../archive/paths.js';
import type { CliName } from '../config/cli-names.js';
import type { SessionSettings } from '../config/schema.js';
import { readIfExists } from '../lib/fs.js';
import type { CliHold } from '../agent/cli-holds.js';
import { chooseCli } from '../agent/fallback.js';
import { handoverText, sessionWork } from '../agent/handover.js';
import { baseCommitOf, checkoutFor, type CheckoutStep } from './checkout.js';
import { type Checkout, repositoryRoot } from '../git/worktree.js';
import { workDirProblem, type Workspace } from '../config/workspace.js';
import { isErrnoException } from '../lib/errors.js';
import { itemSettingsOf, type Item } from '../queue/item.js';
import type { PreparationError } from './preparation-error.js';
import { taskText } from '../prompt/task-text.js';
import { render } from '../template/render.js';
import type { FileCache } from '../lib/file-cache.js';
import { loadPersona, type Persona } from '../persona/persona.js';
import {
  assemblePrompt,
  capContextFile,
  PROMPT_CAP_CHARS,
  type AssembledPrompt,
} from '../prompt/assemble.js';
import { shareLeft, type CandidateSettings } from '../candidates/settings.js';
import { formatCost } from '../lib/usd.js';
import { rulesInForce, standingRules } from '../lessons/rules.js';
import { readLessons } from '../lessons/store.js';

/** Files of the work dir given to the agent as project context: what the project says of itself. */
const PROJECT_CONTEXT_FILES = ['README.md', 'AGENTS.md'];

/** Everything needed to spawn one session, decided before anything runs. */
export interface PreparedSession {
  settings: ResolvedSettings;
  /** Git mode and the quality gates. */
  work: WorkSettings;
  /** Git mode: the item's worktree (the work dir is inside it). */
  checkout?: Checkout;
  /** A session a stage asked for (a reviewer): it reads the item's work and changes none of it. */
  role?: AskedRole;
  /** An asked session's: the worktree it reads (the author's checkout is not its own). */
  worktree?: string;
  /** Git mode was asked for, but the work dir is in no repository. */
  gitSkipped?: boolean;
  /** The appended system prompt, assembled and capped. */
  prompt: AssembledPrompt;
  persona?: string;
  /** The agent CLI that runs it. */
  cli: AgentCli;
  argv: Argv;
  /** Files the CLI reads, written with the prompt before it starts (gemini's policy). */
  cliFiles: { path: string; text: string }[];
  /** Directories the CLI needs, made before it starts. */
  cliDirs: string[];
  env: Record<string, string>;
  secrets: string[];
  /** The names of the secret-looking variables the agent was given (its credentials). */
  passedSecrets: string[];
  resume?: string;
  /** The CLIs the item may fall back on (empty: it waits for its own). */
  fallback: FallbackSettings;
  /** Run on a fallback: the CLI it stands in for, and why that one is held. */
  fallbackFrom?: { cli: CliName; reason: string };
  /** What the session before it, on another CLI, did (in its prompt as `{{HANDOVER}}`). */
  handover?: string;
}

/** No CLI the item may use is free now: it waits, its attempt given back. */
export interface HeldSession {
  held: { cli: CliName; until: number; reason: string };
}

/** What the session is told about itself, and where its files go. */
export interface SessionIdentity {
  sessionId: string;
  iteration: number;
  files: SessionFiles;
  /** Its block of ports and its number among the items running beside it. */
  slot?: Slot;
}

async function readBody(item: Item, root: string): Promise<string | PreparationError> {
  if (item.bodyFile === undefined) return item.body ?? '';
  const file = path.resolve(root, item.bodyFile);
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (error) {
    const code = isErrnoException(error) ? error.code : String(error);
    return { reason: `bodyFile ${file} cannot be read (${code})`, scope: 'item' };
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fsp.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** The bootstrap template rendered with `values`; an unknown placeholder is the workspace's fault. */
async function renderBootstrap(
  workspace: Workspace,
  cache: FileCache,
  values: Record<string, string>,
): Promise<string | PreparationError> {
  const { bootstrap } = workspace.paths;
  const template = await cache.read(bootstrap).catch(() => undefined);
  if (template === undefined)
    return { reason: `bootstrap template ${bootstrap} cannot be read`, scope: 'workspace' };
  return renderTemplate(bootstrap, template, values);
}

/**
 * The standing instructions of the workspace's system prompt, rendered (none in a workspace
 * made before it had the file).
 */
async function renderInstructions(
  workspace: Workspace,
  cache: FileCache,
  values: Record<string, string>,
): Promise<string | PreparationError> {
  const { instructions } = workspace.paths;
  const template = await cache.read(instructions).catch(() => undefined);
  return template === undefined ? '' : renderTemplate(instructions, template, values);
}

function renderTemplate(
  file: string,
  template: string,
  values: Record<string, string>,
): string | PreparationError {
  const rendered = render(template, values);
  if (rendered.ok) return rendered.text;
  return {
    reason: `${file}: unknown placeholder${rendered.unknown.length > 1 ? 's' : ''} ${rendered.unknown
      .map((name) => `{{${name}}}`)
      .join(', ')} (built-in names, "vars" in ralph.config.json and the item's "vars" are known)`,
    scope: 'workspace',
  };
}

/**
 * The rules a person accepted that every author follows (the workspace's), or why they cannot be
 * read: a lessons' state that cannot be trusted stops the night, never a session told no rule.
 */
async function standingRulesOf(
  workspace: Workspace,
  cache: FileCache,
): Promise<string | undefined | PreparationError> {
  try {
    return standingRules(rulesInForce(await readLessons(workspace, cache), []));
  } catch (error) {
    return { reason: error instanceof Error ? error.message : String(error), scope: 'workspace' };
  }
}

/** What a session is prepared from. */
export interface PreparationRequest {
  workspace: Workspace;
  item: Item;
  identity: SessionIdentity;
  /** The environment the agent's is filtered from. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  cache: FileCache;
  /** What the run may still spend: the session is held to it too. */
  budgetLeftUsd?: number;
  /** `plan`: git mode makes no worktree (`ralph run --dry-run` writes nothing). */
  mode?: 'make' | 'plan';
  /** The CLIs the runner holds back now (a usage limit): the session falls back, or waits. */
  holds?: { of: (cli: CliName) => CliHold | undefined; now: number };
  /**
   * Masks the runner's secrets: a handover carries what one CLI's session printed to another
   * vendor's API, never a key it saw.
   */
  redact?: (text: string) => string;
}

/** What the item, its persona and the workspace settle between them, before anything is made. */
export interface Resolution {
  persona?: Persona;
  settings: ResolvedSettings;
  work: WorkSettings;
  fallback: FallbackSettings;
  /** The item's settings over its persona's, as given (before the workspace's defaults). */
  layers: SessionSettings[];
}

/**
 * Renders the bootstrap prompt and builds the command and environment of one session.
 * Anything wrong here (unknown placeholder, missing work dir or body file) is reported before
 * a process is spawned.
 */
export async function prepareSession(
  request: PreparationRequest & Required<Pick<PreparationRequest, 'holds'>>,
): Promise<PreparedSession | PreparationError | HeldSession | EnvironmentWanted | CandidatesWanted>;
export async function prepareSession(
  request: Omit<PreparationRequest, 'holds' | 'mode'> & { mode: 'plan' },
): Promise<PreparedSession | PreparationError>;
export async function prepareSession(
  request: PreparationRequest,
): Promise<
  PreparedSession | PreparationError | HeldSession | EnvironmentWanted | CandidatesWanted
> {
  const own = await resolveSession(request);
  if ('reason' in own) return own;
  const ofCandidates = await candidatesAtClaim(request, own);
  if (ofCandidates !== undefined) return ofCandidates;
  const chosen = onFreeCli(request, own);
  if ('held' in chosen) return chosen;
  const { resolved, fallbackFrom } = chosen;
  const { persona, settings, work } = resolved;
  const unsandboxable = await sandboxProblem(request, resolved);
  if (unsandboxable !== undefined) return unsandboxable;
  const placed = await placeWork(request, resolved);
  if ('reason' in placed) return placed;
  const { checkout } = placed;
  const { workspace, item, identity } = request;
  // A worktree not ready goes to the setup stage first: no session is paid for in it.
  if (checkout !== undefined && request.mode !== 'plan') {
    // A repository whose own environment file cannot be read is the setup stage's to report.
    const environment = await withRepositoryEnvironment(work.environment, checkout.repo).catch(
      () => undefined,
    );
    const wanted =
      environment === undefined
        ? 'setup'
        : await environmentWanted(item, checkout, settings.workDir, environment);
    if (wanted !== undefined) return { wanted };
  }
  const body = await readBody(item, workspace.root);
  if (typeof body !== 'string') return body;
  const previous = await previousSession(request);
  // A conversation is resumed on the CLI that holds it; another CLI is handed the work over.
  const redact = request.redact ?? ((text: string) => text);
  const handover =
    previous === undefined || previous.cli === settings.cli
      ? undefined
      : redact(
          handoverText(
            await sessionWork(
              previous,
              sessionFiles(workspace.paths.sessions, previous.sessionId).stdout,
              item.gateFailure,
              checkout,
            ),
            resolved.fallback.handoverChars,
          ),
        );
  const values = bootstrapValues(request, settings.workDir, body, checkout, handover);
  const rendered = await renderBootstrap(workspace, request.cache, values);
  if (typeof rendered !== 'string') return rendered;
  const instructions = await renderInstructions(workspace, request.cache, values);
  if (typeof instructions !== 'string') return instructions;
  const rules = await standingRulesOf(workspace, request.cache);
  if (typeof rules === 'object') return rules;
  // Set only while the item waits to be resumed after an interruption.
  const resume = handover === undefined ? item.conversationId : undefined;
  const cli = cliNamed(settings.cli);
  const { config } = workspace;
  const { env, secrets, passedSecrets } = sessionEnv(request, cli);
  // A template of an older release has no {{HANDOVER}}: the handover is added at its end.
  const bootstrap =
    handover === undefined || rendered.includes(handover)
      ? rendered
      : `${rendered}\n\n## Handover\n\n${handover}\n`;
  const prompt = await promptOf(request, resolved, { bootstrap, instructions, rules }, checkout);
  if (prompt.sizes.total > PROMPT_CAP_CHARS) {
    return {
      reason: `the prompt is ${prompt.sizes.total} characters, over the cap of ${PROMPT_CAP_CHARS} even with the persona and the project context cut (the task text is ${body.length}): shorten the task text or the template`,
      scope: 'item',
    };
  }
  const command = cli.command({
    command: commandOf(config, cli.name),
    initialPrompt: initialPromptOf(config.initialPrompt, item, resume),
    title: `${item.title} (${item.id})`,
    promptFile: identity.files.prompt,
    system: { file: identity.files.system, text: prompt.system, assignment: prompt.assignment },
    policyFile: identity.files.policy,
    inputFile: identity.files.input,
    sessionId: identity.sessionId,
    resume,
    settings,
    settingsFile: config.clis.claude.settings,
    yolo: config.yolo,
    sandboxed: work.sandbox.kind !== 'none',
    env,
  });
  Object.assign(env, command.env);
  // Found now, before the agent is paid for, not after its session.
  for (const gate of work.gates) {
    const problem = await gateProgramProblem(gate, settings.workDir, env.PATH);
    if (problem !== undefined) return { reason: problem, scope: 'item' };
  }
  return {
    settings,
    work,
    checkout,
    gitSkipped: work.git && checkout === undefined,
    prompt,
    persona: persona?.id,
    cli,
    argv: command.argv,
    cliFiles: command.files ?? [],
    cliDirs: command.dirs ?? [],
    env,
    secrets,
    passedSecrets,
    resume,
    fallback: resolved.fallback,
    fallbackFrom,
    handover,
  };
}

/**
 * A session's environment: the runner's, filtered (its CLI's credentials passed back), and the
 * variables that tell the agent its session.
 */
export function sessionEnv(
  {
    workspace,
    item,
    identity,
    parentEnv,
  }: Pick<PreparationRequest, 'workspace' | 'item' | 'identity' | 'parentEnv'>,
  cli: AgentCli,
) {
  const { config, paths } = workspace;
  const built = buildAgentEnv(parentEnv, {
    deny: config.env.deny,
    allow: config.env.allow,
    credentials: cli.credentials,
    session: {
      sessionId: identity.sessionId,
      itemId: item.id,
      iteration: identity.iteration,
      interruptFile: paths.interruptFile,
    },
  });
  Object.assign(built.env, slotVariables(identity.slot));
  return built;
}

/**
 * The item's own CLI, or a fallback when its own is held (its settings made the fallback's:
 * its CLI and model), or the hold it waits for.
 */
function onFreeCli(
  { holds }: PreparationRequest,
  own: Resolution,
): { resolved: Resolution; fallbackFrom?: { cli: CliName; reason: string } } | HeldSession {
  if (holds === undefined) return { resolved: own };
  const on = (cli: CliName, model: string | undefined): ResolvedSettings => ({
    ...own.settings,
    cli,
    model,
  });
  const choice = chooseCli({
    own: own.settings.cli,
    fallback: own.fallback,
    now: holds.now,
    held: holds.of,
    refuses: ({ cli, model }) => cliRefusal(on(cli, model), own.layers, own.work.sandbox),
  });
  switch (choice.kind) {
    case 'own':
      return { resolved: own };
    case 'held':
      return { held: { cli: choice.cli, until: choice.until, reason: choice.reason } };
    case 'fallback':
      return {
        resolved: { ...own, settings: on(choice.to.cli, choice.to.model) },
        fallbackFrom: { cli: choice.from, reason: choice.reason },
      };
  }
}

/** Sessions of the item's history read back for the one before this: a few, newest first. */
const PREVIOUS_LOOKBACK = 3;

/**
 * The item's last session before this one that left a record (a claim given back before
 * anything ran leaves none).
 */
async function previousSession({
  workspace,
  item,
  identity,
}: PreparationRequest): Promise<SessionRecord | undefined> {
  const ids = item.sessions.filter((id) => id !== identity.sessionId).slice(-PREVIOUS_LOOKBACK);
  for (const id of ids.reverse()) {
    const text = await readIfExists(sessionFiles(workspace.paths.sessions, id).record).catch(
      () => undefined,
    );
    if (text === undefined) continue;
    try {
      const parsed = SessionRecordSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // A record cut short is no history to hand over.
    }
  }
  return undefined;
}

/**
 * The session's settings from the item, its persona and the workspace (in that order of
 * precedence), checked against what the workspace allows and what its CLI can honour. Nothing
 * is made: the persona is only read.
 */
export async function resolveSession(
  request: Pick<PreparationRequest, 'workspace' | 'item' | 'cache' | 'budgetLeftUsd'>,
): Promise<Resolution | PreparationError> {
  const { workspace, item } = request;
  const { config, paths } = workspace;
  const personaId = item.agent ?? config.defaults.agent;
  let persona: Persona | undefined;
  if (personaId !== undefined) {
    try {
      persona = await loadPersona(paths.agents, personaId, request.cache);
    } catch (error) {
      return {
        reason: error instanceof Error ? error.message : String(error),
        scope: item.agent === undefined ? 'workspace' : 'item',
      };
    }
  }
  const own = itemSettingsOf(item);
  if ('problem' in own) return { reason: own.problem, scope: 'item', park: true };
  const layers = persona === undefined ? [own.settings] : [persona.settings, own.settings];
  const settings = resolveSettings(config.defaults, layers, (p) => path.resolve(workspace.root, p));
  if (settings.permissionMode === 'bypassPermissions' && !config.yolo) {
    return {
      reason: 'permission mode "bypassPermissions" needs "yolo": true in ralph.config.json',
      scope: 'item',
    };
  }
  const work = resolveWork(config, layers);
  const refusal =
    fallbackRefusal(layers, settings.cli) ?? cliRefusal(settings, layers, work.sandbox);
  if (refusal !== undefined) return { reason: refusal, scope: 'item' };
  // The run's budget is enforced inside the session too, through --max-budget-usd.
  if (request.budgetLeftUsd !== undefined)
    settings.maxBudgetUsd = Math.min(settings.maxBudgetUsd, request.budgetLeftUsd);
  // A candidate is held to its share of its item's cap inside its session too.
  const share = shareLeft(item);
  if (share !== undefined) settings.maxBudgetUsd = Math.min(settings.maxBudgetUsd, share);
  return {
    persona,
    settings,
    work,
    fallback: resolveFallback(config.defaults, layers, settings.cli),
    layers,
  };
}

/**
 * Why an item that asks for a sandbox cannot have one here (bubblewrap missing, user namespaces
 * off): it is never run without. The workspace's fault when the workspace asks for it.
 */
async function sandboxProblem(
  { item, parentEnv }: PreparationRequest,
  { persona, work }: Resolution,
): Promise<PreparationError | undefined> {
  if (work.sandbox.kind !== 'bwrap') return undefined;
  const probe = await probeSandbox(bubblewrapOf(parentEnv));
  if (probe.ok) return undefined;
  const own = [item, persona?.settings].some((layer) => layer?.sandbox?.kind !== undefined);
  return {
    reason: `the item's settings ask for a sandbox (sandbox.kind "bwrap"), and ${probe.problem}; ralph never runs an agent without the sandbox it asks for`,
    scope: own ? 'item' : 'workspace',
  };
}

/** Git mode's worktree (made, unless planning), and the work dir checked to exist. */
async function placeWork(
  request: PreparationRequest,
  { settings, work, layers }: Resolution,
): Promise<{ checkout?: Checkout } | PreparationError> {
  const { workspace, item } = request;
  const named = namedWorkDir(workspace.config.defaults, layers) !== undefined;
  const problem = workDirProblem(workspace.paths, named ? settings.workDir : undefined);
  if (problem !== undefined)
    return { reason: problem, scope: item.workDir === undefined ? 'workspace' : 'item' };
  let step: CheckoutStep = {};
  if (work.git) {
    step = await checkoutFor(workspace, item, settings.workDir, work, request.mode ?? 'make');
    if ('reason' in step) return step;
    if (step.workDir !== undefined) settings.workDir = step.workDir;
  }
  if (!(await isDirectory(settings.workDir))) {
    return {
      reason: `work dir ${settings.workDir} does not exist`,
      scope: item.workDir === undefined ? 'workspace' : 'item',
    };
  }
  return { checkout: step.checkout };
}

/** The placeholders of the bootstrap template for this session. */
function bootstrapValues(
  { workspace, item, identity }: PreparationRequest,
  workDir: string,
  body: string,
  checkout: Checkout | undefined,
  handover: string | undefined,
): Record<string, string> {
  const { config, paths } = workspace;
  return {
    ...config.vars,
    ...item.vars,
    SESSION_ID: identity.sessionId,
    ITERATION: String(identity.iteration),
    WORK_ITEM: `${item.title} (${item.id})`,
    RIG: config.rig,
    ITEM_ID: item.id,
    ITEM_TITLE: item.title,
    ITEM_BODY: taskText(item, body),
    CRITERIA: criteriaText(item),
    INTERRUPT_FILE: paths.interruptFile,
    WORK_DIR: workDir,
    PORT: identity.slot === undefined ? '' : String(identity.slot.ports[0]),
    SLOT: identity.slot === undefined ? '' : String(identity.slot.index),
    ATTEMPT: String(item.attempts),
    PREVIOUS_ERROR: item.lastError ?? '',
    GATE_FAILURE: item.gateFailure ?? '',
    LAND_FAILURE: item.landFailure ?? '',
    CHECKS_FAILURE: item.checksFailure ?? '',
    REVIEW_FINDINGS: item.reviewFindings ?? '',
    MESSAGES: messagesText(item),
    HANDOVER: handover ?? '',
    BRANCH:
      checkout === undefined
        ? 'none (git mode is off for this item)'
        : `\`${checkout.branch}\` in its own worktree; commit your work on it (ralph commits what you leave uncommitted)`,
  };
}

/** The item's acceptance criteria as a numbered list ('' when it has none). */
export function criteriaText(item: Item): string {
  return (item.criteria ?? []).map((criterion, i) => `${i + 1}. ${criterion}`).join('\n');
}

/** The messages a person sent that no session was given yet, each with who sent it and when. */
export function messagesText(item: Item): string {
  const messages = undeliveredMessages(item);
  if (messages.length === 0) return '';
  return messages.map((m) => `Message from a person (${m.from}, ${m.at}):\n${m.text}`).join('\n\n');
}

/**
 * The message a session starts with. A resumed CLI may keep the system prompt its conversation
 * began with (claude ignores a new `--append-system-prompt-file` on `--resume`), so why the
 * item came back (its checks failed, a landing refused, a gate failed, the attempt ended)
 * travels in the message.
 */
export function initialPromptOf(initial: string, item: Item, resume: string | undefined): string {
  if (resume === undefined) return initial;
  const messages = messagesText(item);
  const news = [
    messages === '' ? undefined : messages,
    item.reviewFindings,
    item.checksFailure,
    item.landFailure,
    item.gateFailure,
  ].filter((text) => text !== undefined);
  if (news.length === 0 && item.lastError !== undefined)
    news.push(`Your previous attempt ended: ${item.lastError}`);
  if (news.length === 0) return initial;
  return [
    initial,
    'This session resumes your earlier one on this item. What has happened since:',
    ...news,
  ].join('\n\n');
}

/**
 * The prompt: who the agent is, the project's context, the persona, the standing instructions
 * and the rules a person accepted (its system part, nothing of the item's), then the item and
 * its assignment.
 */
async function promptOf(
  { workspace, item, identity, cache }: PreparationRequest,
  { persona, settings }: Resolution,
  {
    bootstrap,
    instructions,
    rules,
  }: { bootstrap: string; instructions: string; rules: string | undefined },
  checkout: Checkout | undefined,
) {
  const context: { name: string; text: string }[] = [];
  for (const name of PROJECT_CONTEXT_FILES) {
    const text = await cache.read(path.join(settings.workDir, name)).catch(() => undefined);
    if (text !== undefined && text.trim() !== '')
      context.push({ name, text: capContextFile(text) });
  }
  return assemblePrompt({
    identity: [
      'You are an autonomous coding agent run by ralph, an unattended runner of a queue of coding tasks.',
      `Workspace: ${workspace.root}`,
    ].join('\n'),
    item: [
      `Work item: ${item.id} — ${item.title} (attempt ${item.attempts})`,
      `Session: ${identity.sessionId}, iteration ${identity.iteration}`,
      `Working directory: ${settings.workDir}`,
      ...(checkout === undefined ? [] : [`Git branch: ${checkout.branch}`]),
    ].join('\n'),
    context,
    persona:
      persona === undefined ? undefined : { id: persona.id, instructions: persona.instructions },
    instructions,
    rules,
    bootstrap,
  });
}

/** Its candidates are to run instead of it, from `base` (the same commit for each). */
export interface CandidatesWanted {
  candidates: CandidateSettings;
  base: string;
}

/**
 * What candidates make of a claim: a candidate that spent its share of its item's cap runs no
 * more sessions; an item its candidates are to try from the start (`candidates.when: always`),
 * not put in the queue yet, pays for no session of its own but hands over to them.
 */
async function candidatesAtClaim(
  { item, mode }: Pick<PreparationRequest, 'item' | 'mode'>,
  resolved: Resolution,
): Promise<CandidatesWanted | PreparationError | undefined> {
  const share = shareLeft(item);
  if (share !== undefined && share <= 0)
    return {
      reason: `it spent its share of its item's cap on candidates (${formatCost(item.candidateOf?.shareUsd ?? 0, false)})`,
      scope: 'item',
    };
  if (mode === 'plan') return undefined;
  const candidates = resolved.work.candidates;
  if (candidates?.when !== 'always' || item.roster !== undefined) return undefined;
  if (item.candidateOf !== undefined) return undefined;
  const repo = await repositoryRoot(resolved.settings.workDir);
  if (repo === undefined)
    return {
      reason: `its candidates need a git repository, and ${resolved.settings.workDir} is in none`,
      scope: 'item',
    };
  const base = item.baseCommit ?? (await baseCommitOf(repo, resolved.work));
  return typeof base === 'string' ? { candidates, base } : base;
}
