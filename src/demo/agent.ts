#!/usr/bin/env node
// ralph's demo agent, for `ralph demo` alone: a scripted stand-in that speaks claude's
// stream-json (its input on stdin, its events on stdout), makes real edits and commits in its
// work dir, costs nothing, and calls itself the demo agent wherever it is seen (its model, its
// version, its commits). It is not a model: it plays the script of its item, and knows no other.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DEMO_MODEL, reviewScriptOf, scriptOf, type Step } from './script.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};

// `claude auth status`, which ralph asks before a night and doctor asks: it needs no login.
const auth = args.indexOf('auth');
if (auth !== -1 && args[auth + 1] === 'status') {
  process.stdout.write(
    `${JSON.stringify({ loggedIn: true, authMethod: 'none: the ralph demo agent needs no account' })}\n`,
  );
  process.exit(0);
}

if (args.includes('--version')) {
  process.stdout.write('2.1.0 (ralph demo agent, not Claude Code)\n');
  process.exit(0);
}

const sessionId = flag('--resume') ?? flag('--session-id') ?? randomUUID();
const resumed = args.includes('--resume');
const allowed = (flag('--allowedTools') ?? '').split(',').map((tool) => tool.replace(/\(.*$/, ''));
// As claude's rules have it, `Edit` allows every tool that edits files.
const mayUse = (tool: string) =>
  args.includes('--dangerously-skip-permissions') ||
  allowed.includes(tool) ||
  (tool === 'Write' && allowed.includes('Edit'));
/** The pause between two steps (ms), so that a person watching sees the night unfold. */
const paceMs = Number(flag('--demo-pace') ?? 400);

const emit = (event: Record<string, unknown>) =>
  fs.writeSync(1, `${JSON.stringify({ ...event, session_id: sessionId })}\n`);
const pause = () => new Promise((resolve) => setTimeout(resolve, paceMs));

/** The input ralph gives on stdin: the first prompt, later a person's messages; then its end. */
const input = new Promise<void>((resolve) => {
  process.stdin.resume();
  process.stdin.on('end', resolve);
  process.stdin.on('error', () => resolve());
});

let uses = 0;
let turns = 0;
const denials: { tool_name: string; tool_use_id: string; tool_input: unknown }[] = [];

/** One message of the agent's, as claude's stream has it. */
const assistant = (content: Record<string, unknown>[]) => {
  turns++;
  emit({
    type: 'assistant',
    message: { id: `msg_${turns}`, role: 'assistant', model: DEMO_MODEL, content },
  });
};

const say = (text: string) => assistant([{ type: 'text', text }]);

/** One tool call, carried out for real (the demo's own files and commands) and reported. */
function use(tool: string, toolInput: Record<string, unknown>, run: () => string): void {
  const id = `toolu_demo_${++uses}`;
  assistant([{ type: 'tool_use', id, name: tool, input: toolInput }]);
  let content: string;
  let isError = false;
  if (!mayUse(tool)) {
    emit({ type: 'system', subtype: 'permission_denied', tool_name: tool, tool_use_id: id });
    denials.push({ tool_name: tool, tool_use_id: id, tool_input: toolInput });
    content = `Permission to use ${tool} has been denied.`;
    isError = true;
  } else {
    try {
      content = run();
    } catch (error) {
      content = error instanceof Error ? error.message : String(error);
      isError = true;
    }
  }
  emit({
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
    },
  });
}

const git = (...gitArgs: string[]) =>
  execFileSync('git', gitArgs, {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'ralph demo agent',
      GIT_AUTHOR_EMAIL: 'demo-agent@ralph.invalid',
      GIT_COMMITTER_NAME: 'ralph demo agent',
      GIT_COMMITTER_EMAIL: 'demo-agent@ralph.invalid',
    },
  });

function perform(step: Step): void {
  switch (step.kind) {
    case 'say':
      say(step.text);
      return;
    case 'read':
      use('Read', { file_path: step.file }, () => fs.readFileSync(step.file, 'utf8'));
      return;
    case 'write':
      use('Write', { file_path: step.file, content: step.content }, () => {
        fs.mkdirSync(path.dirname(step.file), { recursive: true });
        fs.writeFileSync(step.file, step.content);
        return `Wrote ${step.file}`;
      });
      return;
    case 'run':
      use('Bash', { command: step.command.join(' '), description: step.why }, () =>
        execFileSync(step.command[0] ?? 'true', step.command.slice(1), {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      return;
    case 'commit':
      use('Bash', { command: `git commit -m '${step.message}'`, description: 'commit' }, () => {
        git('add', '--all');
        return git('commit', '--quiet', '-m', step.message) || `Committed: ${step.message}`;
      });
      return;
  }
}

const startedAt = Date.now();
emit({
  type: 'system',
  subtype: 'init',
  cwd: process.cwd(),
  tools: ['Read', 'Write', 'Bash'],
  model: DEMO_MODEL,
  permissionMode: flag('--permission-mode') ?? 'default',
  claude_code_version: '2.1.0-demo',
});
// ralph's reviewer of an item's work is told so in its prompt.
const promptFile = flag('--append-system-prompt-file');
const reviewing =
  promptFile !== undefined &&
  fs.readFileSync(promptFile, 'utf8').includes('You are a reviewer run by ralph');
const itemId = process.env.RALPH_ITEM_ID ?? '';
const script = reviewing
  ? reviewScriptOf(itemId, (file) =>
      fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined,
    )
  : scriptOf(itemId, resumed);
for (const step of script) {
  await pause();
  perform(step);
}
const last = script.findLast((s) => s.kind === 'say');
emit({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: Date.now() - startedAt,
  num_turns: turns,
  result: last?.kind === 'say' ? last.text : 'done',
  total_cost_usd: 0,
  usage: { input_tokens: 0, output_tokens: 0 },
  permission_denials: denials,
});
// Like claude reading stream-json, it ends once its input is closed.
await input;
process.exit(0);
