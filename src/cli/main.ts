import { createRequire } from 'node:module';
import path from 'node:path';
import type * as commander from 'commander';
import { CLI_NAMES } from '../config/cli-names.js';
import { SANDBOX_KINDS } from '../config/sandbox-kinds.js';
import { PERMISSION_MODES } from '../config/permission-modes.js';
import { InputError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import { commandFailed } from './command-failed.js';
import { addExamples } from './examples.js';
import { workspaceRoot } from './find-workspace.js';
import { processOutput, type Output } from './output.js';
import { VERSION } from '../lib/version.js';
import { CANDIDATE_WHENS } from '../config/candidate-whens.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The flags that set an item's fields, shared by `add` and `edit`. */
function itemOptions(command: commander.Command): commander.Command {
  return command
    .option('--body <text>', 'task text ("-" reads standard input)')
    .option('--file <path>', 'read the task text from a file ("-" for standard input)')
    .option('--priority <n>', 'higher runs first (default 0)')
    .option('--max-attempts <n>', 'attempts before the item is failed')
    .addOption(
      command.createOption('--cli <name>', 'the agent CLI that runs it').choices(CLI_NAMES),
    )
    .option('--max-turns <n>', "turn limit of one session (its CLI's own, or counted by ralph)")
    .option(
      '--max-budget-usd <usd>',
      'USD budget of one session (stopped from the cost its CLI reports)',
    )
    .option('--timeout <duration>', 'wall-clock limit, e.g. 90s, 15m, 2h')
    .option('--idle-timeout <duration>', 'limit on time without output')
    .option('--model <model>', "the CLI's model")
    .option('--work-dir <dir>', "the agent's working directory")
    .option('--agent <id>', 'persona (agents/AGENT_<id>.md)')
    .option('--tools <list>', 'the tools the agent has (comma-separated; "" for none)')
    .option(
      '--allowed-tools <list>',
      'tool rules the agent may use, e.g. "Bash(git *)" (comma-separated)',
    )
    .option('--disallowed-tools <list>', 'tool rules the agent may never use (comma-separated)')
    .addOption(
      command
        .createOption(
          '--permission-mode <mode>',
          "permission mode, in claude's names (each CLI gets its own equivalent)",
        )
        .choices(PERMISSION_MODES),
    )
    .option(
      '--depends-on <ids>',
      'ids that must be done first (comma-separated, repeatable)',
      collect,
    )
    .option('--not-before <time>', 'do not start before this ISO time')
    .option(
      '--schedule <cron>',
      'runs at the next time of this cron expression, and after each run at the next',
    )
    .option('--var <key=value>', 'template variable (repeatable)', collect)
    .option(
      '--criterion <text>',
      'what must hold for the item to be done (repeatable; on edit, replaces its criteria)',
      collect,
    )
    .option('--git', 'git mode: work on branch ralph/<id> in a worktree of its own')
    .option('--no-git', 'work in the work dir itself, whatever "git.enabled" says')
    .option('--base <ref>', 'git mode: the ref the branch starts from (default: HEAD at the claim)')
    .option('--land', 'git mode: land the branch on the target once its gates pass ("land")')
    .option('--no-land', 'leave the branch as it is, whatever "land.enabled" says')
    .option('--no-forge', 'open no pull request for the item, whatever "forge" says')
    .option(
      '--review',
      'git mode: a reviewer (another CLI) approves its work before it lands or its pull request opens',
    )
    .option('--no-review', 'no reviewer for the item, whatever "review.enabled" says')
    .option('--lean', 'trim what the CLI sends before the task (tools its rules refuse, skills)')
    .option('--no-lean', 'send the CLI\'s first request whole, whatever "defaults.lean" says')
    .option(
      '--candidates <list>',
      'git mode: several CLIs try the item, and the gates and a judge pick the change that goes on: "claude,codex,gemini", a model after a colon ("codex:gpt-5"); the same CLI may appear twice',
    )
    .addOption(
      command
        .createOption(
          '--candidates-when <when>',
          'when its candidates run: "always" (from the start; the default for --candidates) or "after_failure" (its own CLI first)',
        )
        .choices(CANDIDATE_WHENS),
    )
    .option(
      '--candidates-max-cost <usd>',
      'what its candidates and their judge may spend together; each candidate is held to its share',
    )
    .option(
      '--fallback <list>',
      'CLIs to fall back on when its own is held by a usage limit, in order: "codex,gemini", a model after a colon ("codex:gpt-5"); "" for none',
    )
    .addOption(
      command
        .createOption(
          '--sandbox <kind>',
          'where the agent and its gates run: "bwrap" (bubblewrap) or "none", whatever "sandbox.kind" says',
        )
        .choices(SANDBOX_KINDS),
    )
    .option(
      '--gate <command>',
      'a quality gate: words run without a shell, or a JSON argv array (repeatable; replaces the configured gates)',
      collect,
    )
    .option(
      '--setup <command>',
      'git mode: a command that makes its new worktree ready before its first session, as a gate is given (repeatable; replaces environment.setup)',
      collect,
    );
}

/** What every command's action needs from the composition root. */
export interface App {
  /** The workspace: `-C`, or found from the current directory. */
  root(): string;
  /** `-C` as given (where `init` makes a workspace). */
  at(): string;
  output: Output;
  env: Readonly<Record<string, string | undefined>>;
  /** Records the command's exit code. */
  done(code: number): void;
}

/** The commands that make and change the queue. */
function queueCommands(program: commander.Command, app: App): void {
  program
    .command('demo [dir]')
    .description(
      "a whole night in a minute, without an account: a small project, six items, ralph's demo agent",
    )
    .option('--no-serve', 'the terminal alone: no dashboard')
    .option('--pace <ms>', "the demo agent's pause between two steps", '400')
    .action(async (dir: string | undefined, options: { serve?: boolean; pace?: string }) => {
      const { demoCommand } = await import('./commands/demo.js');
      app.done(
        await demoCommand(
          path.resolve(app.at(), dir ?? 'ralph-demo'),
          options,
          app.output,
          app.env,
        ),
      );
    });

  program
    .command('init [dir]')
    .description(
      'create a workspace (never overwrites a file); run in a git repository, that one is its project and the workspace goes beside it (<repo>.ralph)',
    )
    .option(
      '--project <repo>',
      "the repository the agents work on (the config's defaults.workDir); default: the git repository init runs in",
    )
    .action(async (dir: string | undefined, options: { project?: string }) => {
      const { initCommand } = await import('./commands/init.js');
      if (dir?.trim() === '')
        throw new InputError(
          'init: give the directory of the new workspace, or nothing for this one',
        );
      app.done(await initCommand(dir, { ...options, here: app.at() }, app.output, app.env));
    });

  itemOptions(
    program
      .command('add <title...>')
      .description('add a work item to the queue; prints its id')
      .option('--id <id>', 'item id (a safe slug; default: from the title)')
      .option('--replace', 'replace an item with the same id that is not running'),
  ).action(async (words: string[], options: Record<string, unknown>) => {
    const { addCommand } = await import('./commands/add.js');
    app.done(await addCommand(app.root(), words.join(' '), options, app.output, app.env));
  });

  itemOptions(
    program
      .command('import <source>')
      .description(
        "add the open tasks of a markdown plan, a prd.json's stories, a GitHub repository's or GitLab project's issues (github:<owner>/<repo>, gitlab:<group>/<project>), or a Linear team's (linear:<TEAM>); again: updates, never duplicates",
      )
      .option('--dry-run', 'say what would be added, updated and cancelled; change nothing')
      .option('--chain', 'each new item depends on the one before it')
      .option('--label <label>', 'github, gitlab, linear: the issues with this label')
      .option(
        '--milestone <milestone>',
        'github, gitlab: the issues of this milestone (its title, or number on GitHub)',
      )
      .option('--assignee <login>', 'the issues assigned to this login (linear: an email, or "me")')
      .option(
        '--state <types>',
        'linear: the issues in states of these types, comma-separated (default: unstarted)',
      )
      .option('--project <name>', 'linear: the issues of this project')
      .option('--cycle <cycle>', 'linear: the issues of this cycle (its number, or "current")'),
  ).action(async (source: string, options: Record<string, unknown>) => {
    const { importWorkCommand } = await import('./commands/import.js');
    app.done(await importWorkCommand(app.root(), source, options, app.output, app.env));
  });

  program
    .command('notify')
    .description('notifications: "ralph notify test" sends a test message to each notifier')
    .command('test')
    .description('send a test message to every notifier of "notify"; say which were sent')
    .action(async () => {
      const { notifyTestCommand } = await import('./commands/notify.js');
      app.done(await notifyTestCommand(app.root(), app.output, app.env));
    });

  const queue = program
    .command('queue')
    .alias('ls')
    .description('list the queue')
    .option('--json', 'print the items as JSON')
    .action(async (options: { json?: boolean }) => {
      const { queueCommand } = await import('./commands/queue.js');
      app.done(await queueCommand(app.root(), options, app.output, app.env));
    });
  queue
    .command('import <file>')
    .description("add every item of a queue file (another workspace's, or an export), all or none")
    .action(async (file: string) => {
      const { importCommand } = await import('./commands/queue.js');
      app.done(await importCommand(app.root(), file, app.output, app.env));
    });
  queue
    .command('export [file]')
    .description('write the queue as a queue file (to stdout without a file)')
    .action(async (file: string | undefined) => {
      const { exportCommand } = await import('./commands/queue.js');
      app.done(await exportCommand(app.root(), file, app.output, app.env));
    });

  program
    .command('db')
    .description("the queue's Postgres database")
    .command('migrate')
    .description('bring the schema up to this version of ralph (under a lock; safe to repeat)')
    .action(async () => {
      const { migrateCommand } = await import('./commands/db.js');
      app.done(await migrateCommand(app.root(), app.output, app.env));
    });
}

/** The commands that act on items already queued. */
/** The morning's decisions on a night's work: the inbox, accept, reject, defer. */
function decisionCommands(program: commander.Command, app: App): void {
  program
    .command('review [id]')
    .description(
      "the morning's inbox: every item that waits on you, most at risk first, each with the parts of its risk score (keys on a terminal: j/k, enter, a accept, r reject, d defer); with an id, everything needed to decide on that item",
    )
    .option('--json', 'print JSON')
    .option('--all', 'deferred items too')
    .option('--list', 'print the inbox, never the interactive view')
    .action(
      async (
        id: string | undefined,
        options: { json?: boolean; all?: boolean; list?: boolean },
      ) => {
        const { reviewCommand } = await import('./commands/review.js');
        app.done(await reviewCommand(app.root(), id, options, app.output, app.env));
      },
    );

  program
    .command('accept <ids...>')
    .description(
      "accept items' work: a done item of git mode lands, a pull request waiting for you is merged, an item whose reviewer's rounds are spent goes on as if approved (you overrule the reviewer), anything else is recorded (state/decisions.jsonl)",
    )
    .option(
      '--candidate <letter>',
      "take this candidate of the item rather than the one picked: the pick's landing is reverted (gated, as a rejection's), and this one lands",
    )
    .action(async (ids: string[], options: { candidate?: string }) => {
      const { decideCommand } = await import('./commands/review.js');
      app.done(await decideCommand(app.root(), 'accepted', ids, options, app.output, app.env));
    });

  program
    .command('reject <ids...>')
    .description(
      "reject items' work with a note: the branch kept under refs/ralph/rejected/, a landing taken off its target by a revert commit (gated like a landing, never a force push), its pull request closed; then back in line with the note in its next prompt, or cancelled",
    )
    .option('--note <text>', "what was wrong: the next attempt's prompt holds it")
    .option('--cancel', 'cancel the item instead of putting it back in line')
    .action(async (ids: string[], options: { note?: string; cancel?: boolean }) => {
      const { decideCommand } = await import('./commands/review.js');
      app.done(await decideCommand(app.root(), 'rejected', ids, options, app.output, app.env));
    });

  program
    .command('defer <ids...>')
    .description(
      'hide items from the review inbox until a time (recorded in state/decisions.jsonl)',
    )
    .requiredOption('--until <when>', 'a duration from now (3d, 12h) or a time')
    .action(async (ids: string[], options: { until: string }) => {
      const { decideCommand } = await import('./commands/review.js');
      app.done(await decideCommand(app.root(), 'deferred', ids, options, app.output, app.env));
    });
}

function itemCommands(program: commander.Command, app: App): void {
  program
    .command('retry [ids...]')
    .description(
      'put failed, cancelled, interrupted or parked items back in the queue, attempts renewed',
    )
    .option('--all', 'every failed, cancelled, interrupted and parked item')
    .option('--status <statuses>', 'every item of these statuses (comma-separated)')
    .option('--force', 'retry a done item too (it runs, and is paid for, again)')
    .action(async (ids: string[], options: { all?: boolean; status?: string; force?: boolean }) => {
      const { retryCommand } = await import('./commands/items.js');
      app.done(await retryCommand(app.root(), { ids, ...options }, app.output, app.env));
    });

  program
    .command('cancel [ids...]')
    .description('cancel items (they stay in the file, never to run)')
    .option('--all', 'every pending, interrupted and failed item')
    .option('--status <statuses>', 'every item of these statuses (comma-separated)')
    .option('--force', 'cancel a done item too')
    .action(async (ids: string[], options: { all?: boolean; status?: string; force?: boolean }) => {
      const { cancelCommand } = await import('./commands/items.js');
      app.done(await cancelCommand(app.root(), { ids, ...options }, app.output, app.env));
    });

  program
    .command('say <id> [text...]')
    .description(
      'send a message to an item\'s agent ("-": read it from stdin): a running session resumes with it at once, else its next session gets it; it answers an item that needs input',
    )
    .action(async (id: string, text: string[]) => {
      const { sayCommand } = await import('./commands/say.js');
      app.done(await sayCommand(app.root(), id, text, app.output, app.env));
    });

  program
    .command('stop <id>')
    .description(
      'stop the session of one running item, the rest of the night going on: parked (out of line until "ralph resume <id>"), its attempt given back',
    )
    .option('--requeue', 'put the item back in line at once instead of parking it')
    .option('--cancel', 'cancel the item once its session has ended')
    .action(async (id: string, options: { cancel?: boolean; requeue?: boolean }) => {
      const { stopCommand } = await import('./commands/stop.js');
      app.done(await stopCommand(app.root(), id, options, app.output, app.env));
    });

  program
    .command('land [ids...]')
    .description(
      'land done items of git mode on their target (a night that ran without landing), run no agent',
    )
    .option('--dry-run', 'say what would land, in order; change nothing')
    .action(async (ids: string[], options: { dryRun?: boolean }) => {
      const { landCommand } = await import('./commands/land.js');
      app.done(await landCommand(app.root(), ids, options, app.output, app.env));
    });

  program
    .command('recover')
    .description('settle what a runner that died left running (as the next run would), run nothing')
    .action(async () => {
      const { recoverCommand } = await import('./commands/items.js');
      app.done(await recoverCommand(app.root(), app.output, app.env));
    });

  program
    .command('rm <ids...>')
    .description('remove items from the queue (their sessions stay archived)')
    .option('--force', 'remove an item even though others depend on it')
    .option('--branch', "also delete the item's git branch ralph/<id>")
    .action(async (ids: string[], options: { force?: boolean; branch?: boolean }) => {
      const { removeCommand } = await import('./commands/items.js');
      app.done(await removeCommand(app.root(), { ids, ...options }, app.output, app.env));
    });

  itemOptions(
    program
      .command('edit <id>')
      .description('change fields of an item that is not running (the flags of add, and --title)')
      .option('--title <title>', 'the title'),
  ).action(async (id: string, options: Record<string, unknown>) => {
    const { editCommand } = await import('./commands/edit.js');
    app.done(await editCommand(app.root(), id, options, app.output, app.env));
  });
}

/** The night itself. */
function runCommands(program: commander.Command, app: App): void {
  program
    .command('run')
    .description('work through the queue')
    .option('--once', 'run one item, then exit')
    .option('--max-iterations <n>', 'stop after this many sessions')
    .option('--drain', 'exit when nothing runnable is left (otherwise wait for new items)')
    .option('--workers <n>', 'items run at once (default: run.workers, 1)')
    .option('--dry-run', 'print the command for each runnable item; spawn nothing')
    .option('--max-cost <usd>', 'stop claiming items once the run has spent this much')
    .option('--until <time>', 'no new item after this time (HH:MM local, or ISO)')
    .option(
      '--window <cron>',
      'start items only in minutes this cron expression names (repeatable)',
      collect,
    )
    .option('--serve <[host:]port>', 'serve the dashboard from the runner too (as ralph serve)')
    .action(async (options: Record<string, unknown>) => {
      const { runCommand } = await import('./commands/run.js');
      app.done(await runCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('plan')
    .description(
      "tonight's forecast: each item's likely cost and time from the archive, the usage windows' room, the order",
    )
    .option('--workers <n>', 'items run at once (default: run.workers, 1)')
    .option('--until <time>', 'no new item after this time (HH:MM local, or ISO)')
    .option('--max-cost <usd>', "the run's cost cap (default: run.maxCostUsd)")
    .option('--json', 'print the whole plan as JSON')
    .action(
      async (options: { workers?: string; until?: string; maxCost?: string; json?: boolean }) => {
        const { planCommand } = await import('./commands/plan.js');
        app.done(await planCommand(app.root(), options, app.output, app.env));
      },
    );
}

/** Lessons and rules: the morning's decisions proposed as rules, in force once a person accepts them. */
function lessonCommands(program: commander.Command, app: App): void {
  const lessons = program
    .command('lessons')
    .description(
      "the lessons gathered from your decisions and the nights' repeated failures, each with its evidence (state/lessons.json)",
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { lessonsCommand } = await import('./commands/lessons.js');
      app.done(await lessonsCommand(app.root(), options, app.output, app.env));
    });
  lessons
    .command('propose')
    .description(
      "give the new lessons to the proposer now (a read-only session of lessons.cli, the reviewer's by default): its rules wait for you in ralph review",
    )
    .action(async () => {
      const { proposeCommand } = await import('./commands/lessons.js');
      app.done(await proposeCommand(app.root(), app.output, app.env));
    });

  const rules = program
    .command('rules')
    .description(
      'the rules you accepted, with when, why, and how often each was applied and broken',
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { rulesCommand } = await import('./commands/lessons.js');
      app.done(await rulesCommand(app.root(), options, app.output, app.env));
    });
  const decision = (
    name: string,
    kind: 'accepted' | 'rejected' | 'retired',
    description: string,
    note: string,
  ) =>
    rules
      .command(`${name} <ids...>`)
      .description(description)
      .option('--note <text>', note)
      .action(async (ids: string[], options: { note?: string }) => {
        const { ruleDecisionCommand } = await import('./commands/lessons.js');
        app.done(await ruleDecisionCommand(app.root(), kind, ids, options, app.output, app.env));
      });
  decision(
    'accept',
    'accepted',
    'accept proposed rules: every later session follows them, the reviewer and the judge check them (lessons.into: the workspace, or the repository once its change lands)',
    'why, kept with the decision',
  );
  decision(
    'reject',
    'rejected',
    'reject proposed rules: they take no effect and are not proposed again',
    'why: the proposer is told it',
  );
  decision(
    'rm',
    'retired',
    'retire rules in force: no longer given, checked, or kept where they lived',
    'why, kept with the rule',
  );
}

/** The commands that read what the night left: sessions, transcripts, reports, personas. */
function reviewCommands(program: commander.Command, app: App): void {
  program
    .command('sessions')
    .description('one line per session, newest first')
    .option('--item <id>', 'only this item')
    .option('--status <status>', 'only this status or outcome')
    .option('--since <time>', 'only since this time, or this long ago (24h, 7d)')
    .option('--json', 'print JSON')
    .action(async (options: { item?: string; status?: string; since?: string; json?: boolean }) => {
      const { sessionsCommand } = await import('./commands/sessions.js');
      app.done(await sessionsCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('logs <session>')
    .description('a session (id, id prefix or item id) as a readable transcript')
    .option('--follow', 'follow a live session until it ends')
    .option('--raw', 'print the stream-json archive as it is')
    .option('--json', 'print the parsed events as JSON lines')
    .action(async (ref: string, options: { follow?: boolean; raw?: boolean; json?: boolean }) => {
      const { logsCommand } = await import('./commands/logs.js');
      app.done(await logsCommand(app.root(), ref, options, app.output, app.env));
    });

  program
    .command('show <session>')
    .description('the session record, command, prompt, stderr and files')
    .option('--json', 'print the record as JSON')
    .action(async (ref: string, options: { json?: boolean }) => {
      const { showCommand } = await import('./commands/show.js');
      app.done(await showCommand(app.root(), ref, options, app.output, app.env));
    });

  program
    .command('diff <item>')
    .description("the item's branch against its base (git diff base...branch), paged on a terminal")
    .option('--stat', 'only the diffstat')
    .action(async (id: string, options: { stat?: boolean }) => {
      const { diffCommand } = await import('./commands/diff.js');
      app.done(await diffCommand(app.root(), id, options, app.output, app.env));
    });

  program
    .command('report')
    .description('outcomes, cost and time per day and per item')
    .option('--since <time>', 'only since this time, or this long ago (24h, 7d)')
    .option('--json', 'print JSON')
    .action(async (options: { since?: string; json?: boolean }) => {
      const { reportCommand } = await import('./commands/report.js');
      app.done(await reportCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('replay <session>')
    .description("print (or run, with --exec) a session's agent CLI command")
    .option('--exec', 'run it here (it spends money: asks first)')
    .option('--yes', 'with --exec: do not ask')
    .action(async (ref: string, options: { exec?: boolean; yes?: boolean }) => {
      const { replayCommand } = await import('./commands/replay.js');
      app.done(await replayCommand(app.root(), ref, options, app.output, app.env));
    });

  const agents = program
    .command('agents')
    .description('list the personas (agents/AGENT_<id>.md) with their tool scopes')
    .action(async () => {
      const { agentsCommand } = await import('./commands/agents.js');
      app.done(await agentsCommand(app.root(), app.output));
    });
  agents
    .command('show <id>')
    .description('the assembled prompt and command a sample item gets with this persona')
    .action(async (id: string) => {
      const { agentShowCommand } = await import('./commands/agents.js');
      app.done(await agentShowCommand(app.root(), id, app.output, app.env));
    });
}

/** The commands that look at and steer a workspace: status, pause and resume, doctor, serve. */
function controlCommands(program: commander.Command, app: App): void {
  program
    .command('serve')
    .description('the HTTP API, live events and the web dashboard of the workspace')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', '7420')
    .option('--read-only', 'serve everything but the routes that change state')
    .option(
      '--token <token>',
      'the bearer token (default: state/serve-token, made at the first start; also RALPH_SERVE_TOKEN)',
    )
    .option('--allow-host <name>', 'another Host name to answer to (repeatable)', collect)
    .option(
      '--public-origin <url>',
      'where an HTTPS proxy serves the dashboard, e.g. https://night.example.ts.net (repeatable)',
      collect,
    )
    .option('--heartbeat <duration>', 'comment on idle event streams this often (proxies)', '15s')
    .action(async (options: Record<string, unknown>) => {
      const { serveCommand } = await import('./commands/serve.js');
      app.done(await serveCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('status')
    .description('the queue, the running session, pauses and waits, the budget')
    .option('--json', 'print the report as JSON')
    .option('--watch', 'refresh every 2 seconds')
    .action(async (options: { json?: boolean; watch?: boolean }) => {
      const { statusCommand } = await import('./commands/status.js');
      app.done(await statusCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('watch')
    .description('a tmux session: the status, and a window following each running session')
    .option('--detach', 'make the session (if missing) without attaching to it')
    .addOption(
      program.createOption('--sync', 'the status window of the session (internal)').hideHelp(),
    )
    .action(async (options: { detach?: boolean; sync?: boolean }) => {
      const { watchCommand } = await import('./commands/watch.js');
      app.done(await watchCommand(app.root(), options, app.output, app.env));
    });

  program
    .command('doctor')
    .description(
      'check the agent CLIs the workspace may run (binary, version, credentials) and the workspace',
    )
    .option(
      '--setup',
      "also run the workspace's setup once in a throw-away worktree of the project, as the setup stage would",
    )
    .action(async (options: { setup?: boolean }) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      app.done(await doctorCommand(app.root(), app.output, app.env, options));
    });

  const service = program
    .command('service')
    .description(
      "run the workspace's ralph run as a systemd service: install, status, logs, uninstall",
    );
  const scoped = (command: commander.Command) =>
    command
      .option('--system', "a system unit (/etc/systemd/system) instead of the person's own")
      .option('--as <user>', 'with --system: the user ralph runs as (never root)');
  scoped(
    service
      .command('install')
      .description(
        'write the unit (ralph run, restarted after a failure, logged to the journal), enable and start it',
      )
      .option('--no-start', 'enable it without starting it now'),
  ).action(async (options: { system?: boolean; as?: string; start?: boolean }) => {
    const { serviceInstallCommand } = await import('./commands/service.js');
    app.done(await serviceInstallCommand(app.root(), options, app.output, app.env));
  });
  for (const [action, description] of [
    ['status', "systemd's status of the workspace's unit"],
    ['logs', "the unit's last 200 lines in the journal"],
    ['uninstall', 'stop and disable the unit, and remove its file'],
  ] as const)
    scoped(service.command(action).description(description)).action(
      async (options: { system?: boolean; as?: string }) => {
        const { serviceCommand } = await import('./commands/service.js');
        app.done(await serviceCommand(app.root(), action, options, app.output, app.env));
      },
    );

  program
    .command('pause [reason...]')
    .description('pause the night: stop the running agents and start nothing until resumed')
    .option('--after-current', 'let the running items finish first')
    .option('--fleet', 'pause every runner of the shared (Postgres) queue')
    .action(async (words: string[], options: { afterCurrent?: boolean; fleet?: boolean }) => {
      const { pauseCommand } = await import('./commands/pause.js');
      const reason = words.length > 0 ? words.join(' ') : undefined;
      app.done(await pauseCommand(app.root(), reason, options, app.output, app.env));
    });

  program
    .command('resume [ids...]')
    .description(
      'remove the interrupt file so the runner goes on; with ids, put those parked items back in line',
    )
    .option('--fleet', 'lift the pause of every runner of the shared (Postgres) queue')
    .action(async (ids: string[], options: { fleet?: boolean }) => {
      const { resumeCommand } = await import('./commands/pause.js');
      app.done(await resumeCommand(app.root(), { ...options, ids }, app.output, app.env));
    });
}

/** ralph's commands, their options and their help, on `program` (a `Command` named ralph). */
export function defineProgram(program: commander.Command, app: App): commander.Command {
  program
    .description(
      `Runs a queue of coding tasks through headless agent CLIs (${CLI_NAMES.join(', ')}), unattended, and leaves a record of every session for the morning.`,
    )
    .version(VERSION, '-V, --version')
    .option(
      '-C, --root <dir>',
      'the workspace (default: the nearest at or above the current directory)',
    )
    .showHelpAfterError(
      "(ralph help lists the commands; ralph help <command> gives a command's options)",
    );
  for (const define of [
    queueCommands,
    itemCommands,
    decisionCommands,
    lessonCommands,
    runCommands,
    reviewCommands,
    controlCommands,
  ])
    define(program, app);
  addExamples(program);
  return program;
}

/**
 * The composition root: parses the command line, runs one command, and maps every failure to
 * an exit code. Command modules are imported only when their command runs, to start fast.
 */
export async function main(
  argv: readonly string[],
  output: Output = processOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  // Required as the CommonJS it is: imported as an ES module, node would first lex its source
  // for its exports, a few milliseconds of every command's start.
  const { Command, CommanderError } = createRequire(import.meta.url)(
    'commander',
  ) as typeof commander;
  let exitCode: number = ExitCode.ok;
  const program = new Command('ralph').exitOverride().configureOutput({
    writeOut: (s) => output.out(s),
    writeErr: (s) => output.err(s),
    // Every message of ralph starts the same way, the parser's too.
    outputError: (s, write) => write(s.replace(/^error: /, 'ralph: ')),
  });
  // Without -C, the workspace is found from a subdirectory, as git finds its repository.
  const given = () => program.opts<{ root?: string }>().root;
  const root = () => workspaceRoot(given());
  const app: App = {
    root,
    at: () => path.resolve(given() ?? '.'),
    output,
    env,
    done: (code) => {
      exitCode = code;
    },
  };
  let commandName = '';
  program.hook('preAction', (_program, action) => {
    commandName = action.name();
  });
  defineProgram(program, app);

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return commandFailed(error, root, commandName, output, env);
  }
}
