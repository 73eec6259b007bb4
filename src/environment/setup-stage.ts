import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildAgentEnv } from '../agent/env.js';
import { reapSession } from '../agent/process.js';
import { sessionFiles } from '../archive/paths.js';
import { itemWorktree } from '../config/workspace.js';
import { runGates } from '../gates/gates.js';
import { repositoryRoot } from '../git/worktree.js';
import { readIfExists, writeFileAtomically } from '../lib/fs.js';
import type { EnvironmentKind, Item } from '../queue/item.js';
import { enterSandbox, enteredGate } from '../sandbox/entry.js';
import type { ItemWork, StageContext } from '../stage/context.js';
import { StageLooks } from '../stage/looks.js';
import type { Stage, StageFactory, StagePace } from '../stage/stage.js';
import { copyWorktreeInclude } from './include.js';

/** Output of setup kept in its log (an install is chatty); the rest is dropped. */
const SETUP_OUTPUT_CAP = 8 * 1024 * 1024;

/** One item's setup or maintenance: its commands, and where they run. */
interface SetupRun {
  wanted: EnvironmentKind;
  commands: ItemWork['environment']['setup'];
  workDir: string;
  worktree: string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The setup stage: items whose worktree is not ready wait as `preparing` for it. */
export const setups: StageFactory = (ctx, onMoved) => new Setups(ctx, onMoved);

/**
 * Makes items' worktrees ready before their sessions, beside the workers (up to as many at once
 * as there are workers): a new worktree gets the files the repository's `.worktreeinclude` lists
 * and its `setup` commands run; a kept one its `maintenance`. The commands run with the network
 * (under the sandbox, the hosts `environment.allowHosts` names) and the secrets named for them,
 * neither of which the agent gets. A failure is the environment's, never the agent's: the item
 * is parked with the command and the end of its output, no attempt spent.
 */
export class Setups implements Stage {
  readonly name = 'setup';
  /** A failed setup parks its item for a person: nothing waits on the stage. */
  readonly stuck = 0;
  private readonly looks = new StageLooks();

  constructor(
    private readonly ctx: StageContext,
    private readonly onMoved: (item: Item | undefined) => void,
  ) {}

  get busy(): boolean {
    return this.looks.busy;
  }

  changed(): void {
    this.looks.changed();
  }

  refusesClaims(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  async run(over: () => boolean, pace: StagePace): Promise<void> {
    const { ctx } = this;
    const width = Math.max(1, ctx.workspace.config.run.workers);
    while (!ctx.stopped()) {
      const begun = this.looks.begin();
      const waiting = await ctx.persistently('reading the items waiting for their setup', () =>
        ctx.queue.preparing(),
      );
      this.looks.saw(begun, waiting.length);
      if (waiting.length === 0) {
        if (over()) return;
        await pace.untilChanged();
        continue;
      }
      await Promise.all(
        waiting.slice(0, width).map(async (item) => this.onMoved(await this.prepare(item))),
      );
    }
  }

  /** Makes one item's worktree ready and records how it went; the item as it is after. */
  async prepare(item: Item): Promise<Item | undefined> {
    const { ctx } = this;
    const wanted = item.environment?.wanted ?? 'setup';
    // Beside the files of the session that wanted it.
    const files = sessionFiles(ctx.workspace.paths.sessions, item.sessions.at(-1) ?? item.id);
    const started = ctx.clock.now();
    let failure: string | undefined;
    try {
      const work = await ctx.workOf(item);
      const worktree = itemWorktree(ctx.workspace.paths, item.id);
      const repo = await repositoryRoot(work.workDir);
      if (repo === undefined) throw new Error(`${work.workDir} is in no git repository`);
      const workDir = path.join(worktree, path.relative(repo, work.workDir));
      const commands = wanted === 'setup' ? work.environment.setup : work.environment.maintenance;
      ctx.events.info('environment_started', {
        item: item.id,
        wanted,
        worktree,
        commands: commands.length,
      });
      if (wanted === 'setup' && work.environment.worktreeInclude) {
        const copied = await copyWorktreeInclude(repo, worktree);
        fs.appendFileSync(
          files.setup,
          `[.worktreeinclude: ${copied.length} copied${copied.length > 0 ? `: ${copied.join(', ')}` : ''}]\n\n`,
          { mode: 0o600 },
        );
        if (copied.length > 0)
          ctx.events.info('worktree_included', { item: item.id, files: copied.length });
      }
      failure = await this.runCommands(
        item,
        work,
        { wanted, commands, workDir, worktree },
        files.setup,
      );
    } catch (error) {
      failure = `the ${wanted} of ${item.id} could not run: ${messageOf(error)}`;
      fs.appendFileSync(files.setup, `[${failure}]\n`, { mode: 0o600 });
    }
    // Stopped with the run: it waits for the next one, as it is.
    if (ctx.stopped()) return undefined;
    const now = ctx.clock.now();
    const log = files.setup;
    if (failure === undefined) {
      ctx.events.info('environment_ready', {
        item: item.id,
        wanted,
        durationMs: now - started,
        log,
      });
      return this.apply(item, { kind: 'environment_ready', log, now });
    }
    const said = ctx.redactor.redact(failure);
    ctx.events.error('environment_failed', { item: item.id, wanted, failure: said, log });
    return this.apply(item, { kind: 'environment_failed', failure: said, log, now });
  }

  /** Runs the commands in the worktree; the failure (command, end of output) if one failed. */
  private async runCommands(
    item: Item,
    work: ItemWork,
    { wanted, commands, workDir, worktree }: SetupRun,
    logFile: string,
  ): Promise<string | undefined> {
    const { ctx } = this;
    const { config, paths } = ctx.workspace;
    const marker = randomUUID();
    const { env } = buildAgentEnv(ctx.parentEnv, {
      deny: config.env.deny,
      allow: [...config.env.allow, ...work.environment.secrets],
      credentials: [],
      session: {
        sessionId: marker,
        itemId: item.id,
        iteration: 0,
        interruptFile: paths.interruptFile,
      },
    });
    const allowHosts = [...work.sandbox.allowHosts, ...work.environment.allowHosts];
    const sandbox = {
      ...work.sandbox,
      network: work.sandbox.network === 'open' ? ('open' as const) : ('allow' as const),
      allowHosts,
    };
    const run = await runGates(commands, {
      cwd: workDir,
      env,
      logFile,
      killGraceMs: config.run.killGrace * 1000,
      maxOutputBytes: SETUP_OUTPUT_CAP,
      signal: ctx.signal,
      kind: { short: wanted, long: `${wanted} command` },
      enter:
        sandbox.kind === 'none'
          ? undefined
          : (command) =>
              enteredGate(
                enterSandbox(ctx, {
                  sandbox,
                  argv: { file: command[0] ?? '', args: command.slice(1) },
                  env,
                  workDir,
                  worktree,
                  onRefused: (refusal) =>
                    ctx.events.warn('egress_blocked', {
                      item: item.id,
                      session: marker,
                      by: wanted,
                      ...refusal,
                    }),
                }),
              ),
    });
    // A command's process that left its group (a daemon an install started) still carries the marker.
    await reapSession(undefined, marker, config.run.killGrace * 1000);
    const log = await readIfExists(logFile);
    if (log !== undefined) await writeFileAtomically(logFile, ctx.redactor.redact(log));
    if (run.stopped) return undefined;
    return run.failure;
  }

  private async apply(
    item: Item,
    event: Parameters<StageContext['queue']['apply']>[1],
  ): Promise<Item | undefined> {
    const applied = await this.ctx.persistently(`recording the setup of ${item.id}`, () =>
      this.ctx.queue.apply(item.id, event),
    );
    return applied.kind === 'applied' ? applied.item : undefined;
  }
}
