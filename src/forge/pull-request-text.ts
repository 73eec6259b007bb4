import { readFile } from 'node:fs/promises';
import { pullRequestName } from '../queue/pull-request-name.js';
import path from 'node:path';
import { sessionFiles } from '../archive/paths.js';
import { SessionRecordSchema } from '../archive/record.js';
import type { FailedCheck, ReviewVerdict } from './forge.js';
import { isIssueSource, type Item } from '../queue/item.js';

/** What a pull request's body tells of the item's last session. */
export interface SessionTold {
  sessionId: string;
  /** The agent's last words. */
  summary?: string;
  gates: { name: string; passed: boolean }[];
  /** Where the session's record and transcript are kept. */
  archive: string;
}

/** Characters of the task and of the agent's summary a body carries. */
const TEXT_CAP = 6_000;
/** Characters of one failing job's log the agent is shown. */
const LOG_CAP = 8_000;

const capped = (text: string, cap: number) =>
  text.length <= cap ? text : `${text.slice(0, cap)}\n…(${text.length - cap} more characters)`;

/**
 * `Fixes owner/name#N` for each issue the pull request's items were imported from, so that
 * merging it closes them (GitHub and GitLab read the line in a body).
 */
export function fixesLines(items: readonly Item[]): string[] {
  const issues = new Set<string>();
  for (const { source } of items)
    if (isIssueSource(source) && source.number !== undefined)
      issues.add(`${source.ref}#${source.number}`);
  return [...issues].map((issue) => `Fixes ${issue}`);
}

/**
 * A pull request's body: the task, what the session said, the gates, the cost, the archive,
 * and the issues it fixes (`fixes`: their lines).
 */
export function pullRequestBody(
  item: Item,
  task: string,
  session: SessionTold | undefined,
  fixes: readonly string[] = [],
): string {
  const gates =
    session === undefined || session.gates.length === 0
      ? 'none configured'
      : session.gates.map((g) => `${g.passed ? '✅' : '❌'} \`${g.name}\``).join(', ');
  const approved = item.verdict?.overall === 'approve' ? item.verdict : undefined;
  return [
    `Opened by ralph for item \`${item.id}\` after its gates passed${approved === undefined ? '' : ` and its reviewer (${approved.cli}) approved it`}.`,
    '## Task',
    capped(task.trim() === '' ? item.title : task.trim(), TEXT_CAP),
    ...(session?.summary === undefined
      ? []
      : ['## What the agent said', capped(session.summary.trim(), TEXT_CAP)]),
    ...reviewSection(item),
    '## Checks before this pull request',
    `Gates: ${gates}`,
    `Cost so far: $${item.costUsd.toFixed(2)} over ${item.sessions.length} session${item.sessions.length === 1 ? '' : 's'}`,
    ...(session === undefined
      ? []
      : [`Sessions archived under \`${session.archive}\` (last: \`${session.sessionId}\`).`]),
    ...(fixes.length === 0 ? [] : [fixes.join('\n')]),
  ].join('\n\n');
}

/** The reviewer's last verdict: its summary, each criterion's verdict and evidence, findings. */
function reviewSection(item: Item): string[] {
  const { verdict } = item;
  if (verdict === undefined) return [];
  const criteria = item.criteria ?? [];
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const table =
    verdict.criteria.length === 0
      ? []
      : [
          [
            '| | Criterion | Evidence |',
            '|---|---|---|',
            ...verdict.criteria.map(
              (c) =>
                `| ${c.verdict} | ${cell(criteria[c.id - 1] ?? `#${c.id}`)} | ${cell(capped(c.evidence, 500))} |`,
            ),
          ].join('\n'),
        ];
  const findings = verdict.findings.map((f) => `- ${f.severity}, \`${f.place}\`: ${f.finding}`);
  return [
    '## Review',
    `${verdict.overall === 'approve' ? 'Approved' : 'Changes requested'} by ${verdict.cli} (session \`${verdict.session}\`)${verdict.summary === undefined ? '.' : `: ${verdict.summary}`}`,
    ...table,
    ...(findings.length === 0 ? [] : [findings.join('\n')]),
  ];
}

/** The failing checks as the agent is told them: each check's summary, annotations, log tail. */
export function checksFailureText(
  item: Item,
  failed: readonly FailedCheck[],
  round: { number: number; of: number },
): string {
  const pr = item.pullRequest;
  const where =
    pr?.kind === 'landed'
      ? `The checks of \`${pr.head}\` (${pullRequestName(pr)}, ${pr.url}), with your work landed on it, failed at ${short(item.checksHead)}:`
      : `The checks of your ${pullRequestName(pr)} (${pr?.url ?? ''}) failed at ${short(item.checksHead)}:`;
  const checks = failed.map((check) =>
    [
      `### ${check.name}`,
      check.summary ?? '(no summary)',
      ...(check.annotations.length === 0
        ? []
        : ['Annotations:', ...check.annotations.map((a) => `- ${a}`)]),
      ...(check.logTail === undefined
        ? []
        : ['End of its log:', indent(capped(check.logTail, LOG_CAP))]),
      ...(check.detailsUrl === undefined ? [] : [`Details: ${check.detailsUrl}`]),
    ].join('\n'),
  );
  return [where, ...checks, fixRequest(item, round)].join('\n\n');
}

/** A review asking for changes, as the agent is told it. */
export function changesRequestedText(
  item: Item,
  requested: ReviewVerdict['changesRequested'],
  round: { number: number; of: number },
): string {
  const reviews = requested.map((review) =>
    [
      `### ${review.reviewer} requested changes`,
      review.body.trim() === '' ? '(no summary)' : review.body.trim(),
      ...review.comments.map((c) => `- ${c}`),
    ].join('\n'),
  );
  return [
    `A review of ${pullRequestName(item.pullRequest)} (${item.pullRequest?.url ?? ''}) asks for changes:`,
    ...reviews,
    fixRequest(item, round),
  ].join('\n\n');
}

/** A base that moved under the pull request and conflicts with its branch. */
export function baseConflictText(item: Item, round: { number: number; of: number }): string {
  const pr = item.pullRequest;
  return [
    `The checks of ${pullRequestName(pr)} (${pr?.url ?? ''}) passed, but \`${pr?.base ?? ''}\` moved meanwhile and cannot be merged into \`${pr?.head ?? ''}\` without conflicts.`,
    `Merge \`${pr?.base ?? ''}\` into your branch (\`git fetch\` first if it is a remote's), resolve every conflict keeping both sides' intent, and commit.`,
    fixRequest(item, round),
  ].join('\n\n');
}

/** The comment a pull request gets when its item fails for its checks. */
export function checksFailedComment(item: Item, names: readonly string[]): string {
  const rounds = item.checkRounds ?? 0;
  return [
    `ralph: ${names.length === 0 ? 'the checks' : names.map((n) => `\`${n}\``).join(', ')} stayed red after ${Math.max(0, rounds - 1)} round${rounds === 2 ? '' : 's'} of fixes by the agent, so item \`${item.id}\` is failed.`,
    `Its branch is kept as it is; \`ralph retry ${item.id}\` gives it to its agent again.`,
  ].join('\n\n');
}

function fixRequest(item: Item, round: { number: number; of: number }): string {
  const branch = item.branch === undefined ? 'your branch' : `your branch \`${item.branch}\``;
  return `Fix this on ${branch}, make the project's checks pass, and commit. ralph pushes your commits and waits for the checks again (fix round ${round.number} of ${round.of}).`;
}

const short = (sha: string | undefined) => (sha === undefined ? 'its head' : sha.slice(0, 12));

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

/** The task as the item gives it: its body, or its body file's text. */
export async function taskOf(root: string, item: Item): Promise<string> {
  if (item.body !== undefined) return item.body;
  if (item.bodyFile === undefined) return item.title;
  return readFile(path.resolve(root, item.bodyFile), 'utf8').catch(() => item.title);
}

/**
 * What the item's last session said and which gates it passed, from its record; undefined
 * until the record is written (it is archived just after its item is recorded).
 */
export async function sessionTold(
  paths: { root: string; sessions: string },
  item: Item,
): Promise<SessionTold | undefined> {
  const sessionId = item.sessions.at(-1);
  if (sessionId === undefined) return undefined;
  const { sessions } = paths;
  // Read with the archive's own schema: a record cut short or of another shape is none.
  const parsed = await readFile(sessionFiles(sessions, sessionId).record, 'utf8')
    .then((text) => SessionRecordSchema.safeParse(JSON.parse(text)))
    .catch(() => undefined);
  if (parsed?.success !== true) return undefined;
  const record = parsed.data;
  return {
    sessionId,
    summary: record.result?.text ?? record.lastText,
    gates: (record.gates ?? []).map((g) => ({ name: g.name, passed: g.passed })),
    archive: path.relative(paths.root, sessions) || sessions,
  };
}
