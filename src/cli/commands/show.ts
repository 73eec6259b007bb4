import type { Item } from '../../queue/item.js';
import fsp from 'node:fs/promises';
import { shellQuote } from '../../agent/argv.js';
import { sessionFiles } from '../../archive/paths.js';
import {
  costLine,
  fallbackLines,
  sandboxLines,
  sessionOpeningLines,
} from '../../archive/report.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { pathExists, readTail } from '../../lib/fs.js';
import type { Output } from '../output.js';
import { redactorFor } from '../../agent/redaction.js';
import { plural } from '../../lib/text.js';
import { formatCost } from '../../lib/usd.js';
import { openSession } from '../session-lookup.js';
import { failingGateOutput } from '../../archive/gate-output.js';
import type { SessionRecord } from '../../archive/record.js';
import { gateVerdict } from '../../gates/gates.js';
import type { Workspace } from '../../config/workspace.js';
import { sourceText } from '../../queue/source-text.js';
import { withQueue } from '../../queue/open.js';
import { holderOf, statusIs } from '../../queue/item-status.js';
import { candidateLines } from '../candidate-text.js';

const STDERR_TAIL = 4096;

/** Git mode's branch, commits and diffstat, and the gates' results. */
function workLines(record: SessionRecord): string[] {
  const lines: string[] = [];
  const { git, gates } = record;
  if (git !== undefined) {
    lines.push(
      `Branch:   ${git.branch} from ${git.base.slice(0, 12)}${git.pushedTo ? `, pushed to ${git.pushedTo}` : ''}`,
      `Changes:  ${git.diffstat === '' ? 'none: the branch changed nothing' : git.diffstat}`,
      `Commits:  ${git.commits.length === 0 ? 'none' : ''}`,
      ...git.commits.map((c) => `  ${c.sha.slice(0, 12)} ${c.subject}`),
    );
  }
  if (gates !== undefined) {
    lines.push('Gates:');
    for (const gate of gates)
      lines.push(
        `  ${gate.passed ? 'passed' : 'FAILED'}  ${gate.name} (${gateVerdict(gate)}, ${(gate.durationMs / 1000).toFixed(1)} s)`,
      );
  }
  return lines;
}

/**
 * The item of its latest session, as the queue has it now: its criteria, and what became of the
 * session after it (its pull request and checks, its push, its landing: landed, waiting, or
 * refused and why).
 */
async function itemLines(
  workspace: Workspace,
  env: Readonly<Record<string, string | undefined>>,
  sessionId: string,
  record: SessionRecord,
): Promise<string[]> {
  // The queue may be out of reach (a fleet's database): the session is shown without it.
  const item = await withQueue(workspace, env, (queue) => queue.dependencyClosure([record.itemId]))
    .then((items) => items.find((i) => i.id === record.itemId))
    .catch(() => undefined);
  // An earlier session of its author's is history; its latest, or an asked one's, shows it now.
  if (item === undefined || (item.sessions.at(-1) !== sessionId && record.role === undefined))
    return [];
  const pr = item.pullRequest;
  const pull =
    pr === undefined
      ? holderOf(item.status) === 'checks'
        ? ['Pull request: being opened']
        : []
      : [
          `${pr.forge === 'gitlab' ? 'Merge request: !' : 'Pull request: #'}${pr.number} ${pr.url} (${pr.head} into ${pr.base})`,
          `Checks:   ${item.mergedAt !== undefined ? `merged ${item.mergedAt}` : (item.checks ?? 'not read yet')}${item.checkRounds ? `, ${item.checkRounds} failed round${item.checkRounds === 1 ? '' : 's'}` : ''}`,
        ];
  const source =
    item.source === undefined
      ? []
      : [
          `Source:   ${sourceText(item.source)}${item.source.url === undefined ? '' : ` ${item.source.url}`}${item.source.writtenBackAt === undefined ? '' : ` (its end written back ${item.source.writtenBackAt})`}`,
        ];
  return [
    ...(statusIs(item.status, 'asksPerson') && item.question !== undefined
      ? [`Waits:    for you: ${item.question}`]
      : []),
    ...(item.head === undefined
      ? []
      : [`Work:     ${item.head.slice(0, 12)} (the commit ralph recorded of its branch)`]),
    ...environmentLines(item),
    ...candidateLines(item),
    ...criteriaLines(item),
    ...reviewLines(item),
    ...source,
    ...pull,
    ...pushLines(item),
    ...landingLines(item),
  ];
}

/** Its worktree's environment: being made, ready, or why its setup failed. */
function environmentLines(item: Item): string[] {
  const environment = item.environment;
  if (environment === undefined) return [];
  const log = environment.log === undefined ? '' : ` (log ${environment.log})`;
  if (holderOf(item.status) === 'setup')
    return [`Environment: its ${environment.wanted ?? 'setup'} runs before its next session`];
  if (environment.failure !== undefined)
    return [`Environment: failed${log}:`, ...environment.failure.split('\n').map((l) => `  ${l}`)];
  return environment.readyAt === undefined
    ? []
    : [`Environment: ready ${environment.readyAt}${log}`];
}

/** What must hold for the item to be done, each with its reviewer's verdict and evidence. */
function criteriaLines(item: Item): string[] {
  const criteria = item.criteria ?? [];
  const verdicts = new Map(item.verdict?.criteria.map((c) => [c.id, c]));
  return criteria.length === 0
    ? []
    : [
        'Criteria:',
        ...criteria.flatMap((criterion, i) => {
          const verdict = verdicts.get(i + 1);
          return verdict === undefined
            ? [`  ${i + 1}. ${criterion}`]
            : [`  ${i + 1}. ${verdict.verdict} ${criterion}`, `       ${verdict.evidence}`];
        }),
      ];
}

/** Its reviewer's last verdict and findings, or why it is unreviewed. */
function reviewLines(item: Item): string[] {
  const lines: string[] = [];
  const { verdict } = item;
  if (holderOf(item.status) === 'reviewer')
    lines.push(
      item.unreviewed === undefined
        ? 'Review:   waits for its reviewer'
        : `Review:   unreviewed: ${item.unreviewed}${item.lookAgain === undefined ? '' : ` (again at ${item.lookAgain.at})`}`,
    );
  if (verdict === undefined) return lines;
  const rounds = item.reviewRounds ? `, ${plural(item.reviewRounds, 'round')} of changes` : '';
  lines.push(
    `Verdict:  ${verdict.overall === 'approve' ? 'approved' : 'changes requested'} by ${verdict.cli} (session ${verdict.session}, ${formatCost(verdict.costUsd, false)})${rounds}${verdict.summary === undefined ? '' : `: ${verdict.summary}`}`,
    ...verdict.findings.map((f) => `  ${f.severity} ${f.place}: ${f.finding}`),
  );
  return lines;
}

/** Where the item's branch was pushed (`git.push`), or that it waits to be. */
function pushLines(item: Item): string[] {
  if (item.pushTo !== undefined)
    return [
      `Push:     waits to be pushed to ${item.pushTo.remote}${item.pushTo.at === undefined ? '' : ` (tried ${plural(item.pushTo.looks, 'time')}, again at ${item.pushTo.at})`}`,
    ];
  return item.pushedTo === undefined ? [] : [`Push:     pushed to ${item.pushedTo}`];
}

/** Where the item landed, or why not. */
function landingLines(item: Item): string[] {
  if (item.landedCommit !== undefined)
    return [
      `Landed:   on ${item.landedOn ?? '?'} at ${item.landedCommit.slice(0, 12)}${item.landedOnto ? ` (onto ${item.landedOnto.slice(0, 12)})` : ''}${item.landedAt ? `, ${item.landedAt}` : ''}`,
    ];
  if (holderOf(item.status) === 'lander')
    return [
      item.lookAgain === undefined || item.lastError === undefined
        ? 'Landing:  waits to land'
        : `Landing:  waits to land: ${item.lastError} (tried again at ${item.lookAgain.at})`,
    ];
  if (item.landFailure !== undefined)
    return [
      `Landing:  not landed (${statusIs(item.status, 'failure') ? 'failed' : 'back with its agent'}, round ${item.landRounds ?? 1}): ${item.lastError ?? ''}`,
    ];
  return [];
}

/** `ralph show <session|item>`: the record, the command, the prompt, stderr and every file. */
export async function showCommand(
  root: string,
  ref: string,
  options: { json?: boolean },
  output: Output,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const { workspace, sessionId, record } = await openSession(root, ref, env);
  const files = sessionFiles(workspace.paths.sessions, sessionId);
  const redactor = redactorFor(workspace, env);
  if (options.json) {
    output.out(redactor.redact(JSON.stringify(record, null, 2)));
    return ExitCode.ok;
  }
  const present = (
    await Promise.all(
      Object.entries({ ...files }).map(async ([kind, file]) =>
        (await pathExists(file)) ? [[kind, file] as const] : [],
      ),
    )
  ).flat();
  const prompt = await fsp.readFile(files.prompt, 'utf8').catch(() => '(missing)');
  const tail = await readTail(files.stderr, STDERR_TAIL);
  const stderr = `${tail.cut ? '…' : ''}${tail.text}`.trim();
  const lines = [
    `Session ${record.sessionId} — item ${record.itemId} "${record.itemTitle}"`,
    `Status:   ${record.status}${record.outcome ? ` (${record.outcome.kind}: ${record.outcome.message})` : ''}`,
    `Started:  ${record.startedAt}${record.endedAt ? `, ended ${record.endedAt}` : ''}`,
    record.role === 'reviewer'
      ? `Role:     reviewer of the item's work (read-only), after its attempt ${record.attempt}`
      : `Attempt:  ${record.attempt}, iteration ${record.iteration}${record.persona ? `, persona ${record.persona}` : ''}`,
    `Agent:    ${record.cli}, session ${record.conversationId ?? '-'}${record.model ? `, model ${record.model}` : ''}${
      record.cliVersion ? `, ${record.cli} ${record.cliVersion}` : ''
    }${record.resumedFrom ? `, resumed from ${record.resumedFrom}` : ''}`,
    ...fallbackLines(record),
    `Exit:     ${record.exit ? (record.exit.signal ? `signal ${record.exit.signal}` : `code ${record.exit.code}`) : '-'}${
      record.stopReason ? ` (stopped by ralph: ${record.stopReason})` : ''
    }`,
    `Activity: ${record.heartbeat.assistantMessages} assistant messages, ${record.heartbeat.toolCalls} tool calls, ${record.heartbeat.stdoutBytes} bytes of stream`,
    `Cost:     ${costLine(record)}${
      record.result?.numTurns === undefined ? '' : `, ${plural(record.result.numTurns, 'turn')}`
    }`,
    ...sessionOpeningLines(record),
    `Work dir: ${record.workDir}`,
    ...(record.messages ?? []).map(
      (m) =>
        `Message:  from ${m.from} at ${m.at}${m.live === true ? ' (while it ran)' : ''}: ${m.text}`,
    ),
    ...sandboxLines(record),
    ...workLines(record),
    ...(await failingGateOutput(record, files.gates)).map((line, i) =>
      i === 0 ? `Failing gate's output (the end):\n  ${line}` : `  ${line}`,
    ),
    ...(await itemLines(workspace, env, sessionId, record)),
    '',
    'Command (secrets masked):',
    `  ${shellQuote(record.command)}`,
    '',
    'Files:',
    ...present.map(([kind, file]) => `  ${kind.padEnd(8)} ${file}`),
    '',
    `Stderr${stderr === '' ? ': (empty)' : ' (the end):'}`,
    ...(stderr === '' ? [] : stderr.split('\n').map((l) => `  ${l}`)),
    '',
    record.cli === 'claude' ? 'Appended system prompt:' : 'Prompt:',
    prompt,
  ];
  output.out(redactor.redact(lines.join('\n')));
  return ExitCode.ok;
}
