import { createHash } from 'node:crypto';
import path from 'node:path';
import { buildAgentEnv } from '../agent/env.js';
import { landSettingsOf } from './settings.js';
import { makeReady } from '../environment/make-ready.js';
import { withRepositoryEnvironment } from '../environment/repository.js';
import { gateEntry } from '../sandbox/entry.js';
import type { Item } from '../queue/item.js';
import type { StageContext } from '../stage/context.js';
import type { ItemWork } from '../stage/sessions.js';
import { EnvironmentFailed, type LandJob } from './landing.js';

/** Bytes of one land gate's output kept in its log. */
const LAND_GATE_OUTPUT_CAP = 4 * 1024 * 1024;

/** What a change of a target (a landing, a revert) is made with, but for its own questions. */
export type TargetJob = Omit<LandJob, 'inLine'>;

/**
 * A change of the item's target made in a worktree ralph keeps for it (`kind`: `land`, `revert`)
 * under `state/`: the item's land settings, its repository and committer, and its land gates run
 * as its gates run (its sandbox, its environment made ready by `ready`), logged to `logFile`.
 */
export function targetJob(
  ctx: StageContext,
  parts: {
    item: Item;
    work: ItemWork;
    repo: string;
    identity: Readonly<Record<string, string>>;
    kind: 'land' | 'revert';
    logFile: string;
    ready: (worktree: string) => Promise<void>;
  },
): TargetJob {
  const { workspace } = ctx;
  const { item, work, repo } = parts;
  const land = landSettingsOf(workspace.config, work.layers);
  const session = item.sessions.at(-1) ?? item.id;
  const { env } = buildAgentEnv(ctx.parentEnv, {
    deny: workspace.config.env.deny,
    allow: workspace.config.env.allow,
    credentials: [],
    session: {
      sessionId: session,
      itemId: item.id,
      iteration: 0,
      interruptFile: workspace.paths.interruptFile,
    },
  });
  const key = createHash('sha256').update(`${repo}\n${land.target}`).digest('hex').slice(0, 16);
  const worktree = path.join(workspace.paths.state, parts.kind, key);
  const workDir = path.join(worktree, path.relative(repo, work.workDir));
  return {
    item,
    repo,
    workDirInRepo: path.relative(repo, work.workDir),
    land,
    forge: work.forge,
    worktree,
    identity: parts.identity,
    environment: () => parts.ready(worktree),
    gates: {
      env,
      logFile: parts.logFile,
      killGraceMs: workspace.config.run.killGrace * 1000,
      maxOutputBytes: LAND_GATE_OUTPUT_CAP,
      signal: ctx.signal,
      onStart: (gate) =>
        ctx.events.info('land_gate_started', { item: item.id, target: land.target, gate }),
      // The item's sandbox holds its land gates too, on the kept worktree.
      enter: gateEntry(ctx, {
        sandbox: work.sandbox,
        env,
        workDir,
        worktree,
        onRefused: (refusal) =>
          ctx.events.warn('egress_blocked', { item: item.id, session, by: 'gate', ...refusal }),
      }),
    },
  };
}

/**
 * A kept target worktree made ready for the land gates, which run the item's tests, as an item's
 * worktree is for its gates: `setup` the first time a run uses it (its `.worktreeinclude`
 * copies, its setup commands, its dependencies), `maintenance` after. A failure is thrown: no
 * fault of the item's.
 */
export async function readyTargetWorktree(
  ctx: StageContext,
  parts: {
    item: Item;
    work: ItemWork;
    repo: string;
    worktree: string;
    wanted: 'setup' | 'maintenance';
    logFile: string;
  },
): Promise<boolean> {
  const { item, work, repo, worktree, wanted } = parts;
  const environment = await withRepositoryEnvironment(work.environment, repo);
  if (
    wanted === 'maintenance' &&
    environment.maintenance.length === 0 &&
    environment.dependencies.length === 0
  )
    return false;
  const session = item.sessions.at(-1) ?? item.id;
  const readied = await makeReady(ctx, {
    itemId: item.id,
    wanted,
    environment,
    sandbox: work.sandbox,
    repo,
    worktree,
    workDir: path.join(worktree, path.relative(repo, work.workDir)),
    logFile: parts.logFile,
    signal: ctx.signal,
    onRefused: (refusal) =>
      ctx.events.warn('egress_blocked', { item: item.id, session, by: wanted, ...refusal }),
  });
  if (readied.failure !== undefined)
    throw new EnvironmentFailed(
      `the kept worktree's ${wanted} failed: ${readied.failure}`,
      environment.dependencies.flatMap((tree) =>
        tree.lockfiles.map((file) => path.relative(repo, path.join(work.workDir, file))),
      ),
    );
  return true;
}
