import { randomInt } from 'node:crypto';
import type { CliName } from '../config/cli-names.js';
import { git } from '../git/git.js';
import { which } from '../lib/which.js';
import { addUsd, formatCost } from '../lib/usd.js';
import { commandOf } from '../agent/clis/index.js';
import { capDiff } from '../git/capped-diff.js';
import { fileChanges, repositoryRoot } from '../git/worktree.js';
import type { CandidateEntry, Item, Judgement } from '../queue/item.js';
import { holderOf, statusIs } from '../queue/item-status.js';
import { judgingOrder } from '../queue/select.js';
import type { StageContext } from '../stage/context.js';
import type { ItemWork } from '../stage/sessions.js';
import type { StageDeclaration, StageFactory, Stepped } from '../stage/stage.js';
import { addMissingCandidates } from './fork.js';
import { judgeOf, labelsFor, type JudgeVerdict } from './judge.js';
import { anonymized, judgeRequest } from './request.js';
import { recordJudgedRules, rulesToJudge } from './rules.js';
import { candidateGates, withGateOutput } from './gates.js';

/** The candidates stage: items several CLIs try wait as `judging` for them, then for a pick. */
export const candidates: StageFactory = (ctx) => new Candidates(ctx);

/** Where a candidate's branch is kept once the pick is made, won or lost. */
export const candidateRef = (item: string, entry: CandidateEntry) =>
  `refs/ralph/candidates/${item}/${entry.letter}-${entry.cli}`;

/**
 * Tends the items several CLIs try. It puts their candidates in line, waits for them to end,
 * keeps each one's branch under `refs/ralph/candidates/`, and picks failing closed: a candidate
 * whose gates failed is out; none left fails the item; one left (review off) is picked by its
 * gates; otherwise a judge of a CLI that wrote none compares them, anonymized and shuffled, and
 * the best-ranked one that meets every criterion goes on. A judge that errs picks nothing: the
 * item waits for a person.
 */
class Candidates implements StageDeclaration {
  readonly name = 'candidates';
  readonly on = true;
  readonly tends = { status: 'judging', order: judgingOrder } as const;
  readonly width = 1;
  readonly pauses = true;
  readonly unmoved = 'waiting';
  readonly awaits = 'due';
  /**
   * The items whose candidates were still running at the last look: not due until one ends (a
   * change of the queue, which wakes the stage) or the run's next poll. Any other is due.
   */
  private running = new Set<string>();

  constructor(private readonly ctx: StageContext) {}

  /** Which of the items it waits on still have candidates running; no read while there are none. */
  async beforeLook(): Promise<void> {
    if (this.running.size === 0) return;
    const { ctx } = this;
    const [parents, candidates] = await ctx.persistently(
      'reading the candidates judged',
      async () => {
        const judged = (await ctx.queue.dependencyClosure([...this.running])).filter(
          (item) => this.running.has(item.id) && holderOf(item.status) === 'judge',
        );
        const ids = judged.flatMap((item) => (item.roster ?? []).flatMap((c) => c.item ?? []));
        return [judged, await ctx.queue.dependencyClosure(ids)] as const;
      },
    );
    const byId = new Map(candidates.map((item) => [item.id, item]));
    this.running = new Set(
      parents.filter((item) => stillRunning(item, byId)).map((item) => item.id),
    );
  }

  /** One runner of a fleet judges at a time: a pick is paid for once. */
  lock(): Promise<(() => Promise<void>) | undefined> {
    return this.ctx.persistently('judging candidates', () =>
      this.ctx.queue.lockAlone('candidates'),
    );
  }

  /**
   * Due once its candidates have all ended; until then, at the run's next poll at the latest (a
   * candidate that ends changes the queue, which wakes the stage sooner).
   */
  dueAt(item: Item): number | undefined {
    if (!this.running.has(item.id)) return undefined;
    return this.ctx.clock.now() + this.ctx.workspace.config.run.pollInterval * 1000;
  }

  async step(looked: Item): Promise<Stepped> {
    const { ctx } = this;
    // Read again under the lock: another runner may have made its pick since the look.
    const roster = looked.roster ?? [];
    const read = await ctx.queue.dependencyClosure([
      looked.id,
      ...roster.flatMap((c) => c.item ?? []),
    ]);
    const item = read.find((i) => i.id === looked.id);
    if (item === undefined || holderOf(item.status) !== 'judge') return { kind: 'moved' };
    const present = read.filter((i) => i.id !== item.id);
    if (roster.some((c) => c.item !== undefined && !present.some((p) => p.id === c.item))) {
      const refused = await addMissingCandidates(ctx.queue, item, present, ctx.clock.now());
      if (refused === undefined) return { kind: 'moved' };
      return { kind: 'moved', item: await this.unpicked(item, roster, refused, false) };
    }
    const ended = roster.map((entry) => endOf(entry, present));
    if (ended.some((entry) => entry === 'running')) {
      this.running.add(item.id);
      return { kind: 'waiting' };
    }
    this.running.delete(item.id);
    const work = await ctx.sessions.workOf(item);
    const repo = await repositoryRoot(work.workDir);
    if (repo === undefined) throw new Error(`${work.workDir} is in no git repository`);
    const entries = await measured(
      repo,
      item.baseCommit,
      await withGateOutput(
        ctx.workspace.paths.sessions,
        ended.filter((entry) => entry !== 'running'),
        present,
        (text) => ctx.redactor.redact(text),
      ),
    );
    await this.keep(repo, item.id, entries);
    const passing = entries.filter((entry) => entry.out === undefined && entry.head !== undefined);
    if (passing.length === 0)
      return {
        kind: 'moved',
        item: await this.unpicked(item, entries, failuresOf(entries), false),
      };
    if (passing.length === 1 && !work.review) {
      const pick = { entry: passing[0]!, session: lastSessionOf(passing[0]!, present) };
      return { kind: 'moved', item: await this.picked(item, work, entries, pick, 'gates') };
    }
    return this.judge(item, work, repo, entries, passing, present);
  }

  /** Each candidate's branch kept under its ref, whatever becomes of it. */
  private async keep(repo: string, id: string, entries: readonly CandidateEntry[]) {
    for (const entry of entries) {
      const commit = entry.head ?? entry.branch;
      if (commit === undefined) continue;
      await git(repo, [
        'update-ref',
        '-m',
        `ralph: candidate ${entry.letter} of ${id}`,
        candidateRef(id, entry),
        commit,
      ]).catch(() => undefined);
    }
  }

  /** The passing candidates compared by a judge; its pick goes on, or nothing does. */
  private async judge(
    item: Item,
    work: ItemWork,
    repo: string,
    entries: CandidateEntry[],
    passing: CandidateEntry[],
    items: readonly Item[],
  ): Promise<Stepped> {
    const { ctx } = this;
    const settings = ctx.workspace.config.candidates;
    const shown = shuffled(passing);
    const labels = labelsFor(shown.length);
    const names = entries.flatMap((e) => [e.cli, ...(e.model === undefined ? [] : [e.model])]);
    const each = Math.floor(settings.maxDiffChars / shown.length);
    const gates = await candidateGates(ctx.workspace.paths.sessions, shown, items);
    const own = item.criteria ?? [];
    const base = item.baseCommit ?? '';
    const rules = await rulesToJudge(
      ctx,
      repo,
      base,
      shown.map((e) => e.head ?? ''),
    );
    const subject = {
      title: item.title,
      body: item.body ?? '',
      criteria: [...own, ...rules.criteria],
      candidates: await Promise.all(
        shown.map(async (entry, i) => ({
          label: labels[i]!,
          diff: capDiff(
            anonymized(
              await git(repo, ['diff', '--no-color', `${base}...${entry.head ?? ''}`]),
              names,
            ),
            each,
          ),
          gates: gates.get(entry.letter) ?? [],
        })),
      ),
    };
    const cli = this.judgeCli(work, entries);
    // Where the pick goes on: a candidate a person takes instead goes the same way.
    const then = { land: work.land, pullRequest: work.forge };
    // Capped together, the judge may spend what its candidates left of the cap.
    const leftUsd =
      work.candidatesMaxCostUsd === undefined
        ? undefined
        : work.candidatesMaxCostUsd - spentOn(item, entries);
    if (leftUsd !== undefined && leftUsd <= 0) {
      const failure = `the candidates spent their cap (${formatCost(work.candidatesMaxCostUsd ?? 0, false)}): no judge was paid for`;
      const at = new Date(ctx.clock.now()).toISOString();
      const none = { shown: [], costUsd: 0, failure, then, at };
      return { kind: 'moved', item: await this.unpicked(item, entries, failure, true, none) };
    }
    const prompt = judgeRequest(subject);
    ctx.events.info('judgement_started', {
      item: item.id,
      cli,
      shown: shown.length,
      diffChars: subject.candidates.reduce((n, c) => n + c.diff.text.length, 0),
    });
    const end = await ctx.sessions.ask(item, {
      kind: judgeOf(labels, subject.criteria.length),
      cli,
      model: settings.judge?.model,
      prompt,
      workDir: repo,
      worktree: repo,
      timeoutSeconds: settings.timeout,
      sandbox: work.sandbox,
      ...(leftUsd === undefined ? {} : { maxCostUsd: leftUsd }),
    });
    if (end.kind === 'unanswered' && ctx.stopped()) return { kind: 'waiting' };
    const judgement: Judgement = {
      shown: shown.map((e) => e.letter),
      cli,
      ...(end.sessionId === undefined ? {} : { session: end.sessionId }),
      costUsd: end.costUsd,
      then,
      at: new Date(ctx.clock.now()).toISOString(),
    };
    if (end.kind === 'unanswered') {
      const why = end.outcome === 'invalid' ? end.reason : `${end.outcome}: ${end.reason}`;
      const failure = ctx.redactor.redact(`the judge (${cli}) picked nothing: ${why}`);
      return {
        kind: 'moved',
        item: await this.unpicked(item, entries, failure, true, { ...judgement, failure }),
      };
    }
    const of = { item: item.id, session: end.sessionId, at: judgement.at };
    await recordJudgedRules(ctx, of, end.value, rules.rules, own.length);
    const read = translated(end.value, shown);
    const best = read.ranking
      .map((letter) => shown.find((e) => e.letter === letter)!)
      .find((entry) => (read.criteria[entry.letter] ?? []).every((c) => c.verdict === 'PASS'));
    const judged = { ...judgement, ...read, reason: ctx.redactor.redact(end.value.reason) };
    if (best === undefined) {
      const failure = 'no candidate meets every criterion, by the judge';
      return {
        kind: 'moved',
        item: await this.unpicked(item, entries, failure, true, { ...judged, failure }),
      };
    }
    return {
      kind: 'moved',
      item: await this.picked(
        item,
        work,
        entries,
        { entry: best, session: lastSessionOf(best, items) },
        cli,
        { ...judged, picked: best.letter },
      ),
    };
  }

  /**
   * The judge's CLI: the one set, else the first found of the reviewer's, the item's fallbacks
   * and its own that wrote none of the candidates, else the reviewer's, else the item's own.
   */
  private judgeCli(work: ItemWork, entries: readonly CandidateEntry[]): CliName {
    const { config } = this.ctx.workspace;
    if (config.candidates.judge !== undefined) return config.candidates.judge.cli;
    const wrote = new Set(entries.map((e) => e.cli));
    const found = (cli: CliName) =>
      which(commandOf(config, cli)[0] ?? cli, this.ctx.parentEnv.PATH) !== undefined;
    const choices = [config.review.cli, ...work.fallbackClis, work.cli].filter(
      (cli): cli is CliName => cli !== undefined,
    );
    return choices.find((cli) => !wrote.has(cli) && found(cli)) ?? config.review.cli ?? work.cli;
  }

  private async picked(
    item: Item,
    work: ItemWork,
    roster: CandidateEntry[],
    { entry, session }: { entry: CandidateEntry; session: string | undefined },
    by: string,
    judgement?: Judgement,
  ): Promise<Item | undefined> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const chosen: Judgement = judgement ?? {
      shown: [entry.letter],
      costUsd: 0,
      picked: entry.letter,
      reason: 'the only candidate whose gates passed',
      at: new Date(now).toISOString(),
    };
    const applied = await ctx.persistently(`recording the pick of ${item.id}`, () =>
      ctx.queue.apply(item.id, {
        kind: 'candidate_picked',
        judgement: chosen,
        pick: {
          branch: entry.branch ?? '',
          baseCommit: item.baseCommit ?? '',
          head: entry.head ?? '',
          ...(session === undefined ? {} : { session }),
        },
        roster,
        then: { land: work.land, pullRequest: work.forge },
        now,
      }),
    );
    const after = applied.kind === 'applied' ? applied.item : undefined;
    ctx.events.info('candidate_picked', {
      item: item.id,
      candidate: entry.letter,
      cli: entry.cli,
      by,
      costUsd: after?.costUsd ?? item.costUsd,
      itemStatus: after?.status,
    });
    return after;
  }

  private async unpicked(
    item: Item,
    roster: CandidateEntry[],
    reason: string,
    passed: boolean,
    judgement?: Judgement,
  ): Promise<Item | undefined> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const applied = await ctx.persistently(`recording that ${item.id} has no pick`, () =>
      ctx.queue.apply(item.id, {
        kind: 'candidates_unpicked',
        judgement: judgement ?? {
          shown: [],
          costUsd: 0,
          failure: reason,
          at: new Date(now).toISOString(),
        },
        roster,
        reason,
        passed,
        now,
      }),
    );
    const after = applied.kind === 'applied' ? applied.item : undefined;
    ctx.events.warn('candidates_unpicked', { item: item.id, reason, itemStatus: after?.status });
    return after;
  }
}

/** A candidate as it ended (out with why, or passed at its head), or `running` while it runs. */
function endOf(entry: CandidateEntry, present: readonly Item[]): CandidateEntry | 'running' {
  if (entry.item === undefined) return entry;
  const item = present.find((p) => p.id === entry.item);
  if (item === undefined) return { ...entry, out: 'its item was removed' };
  if (!statusIs(item.status, 'finished')) return 'running';
  const took = Date.parse(item.finishedAt ?? '') - Date.parse(item.startedAt ?? '');
  const ended = {
    ...entry,
    costUsd: item.costUsd,
    ...(Number.isFinite(took) && took >= 0 ? { seconds: took / 1000 } : {}),
    ...(item.branch === undefined ? {} : { branch: item.branch }),
    ...(item.head === undefined ? {} : { head: item.head }),
  };
  return statusIs(item.status, 'complete') && item.head !== undefined
    ? ended
    : { ...ended, out: item.lastError ?? `it is ${item.status}` };
}

/** The last session of a candidate's item, among `items`. */
const lastSessionOf = (entry: CandidateEntry, items: readonly Item[]) =>
  items.find((item) => item.id === entry.item)?.sessions.at(-1);

/** Whether an item's candidates (among `byId`) are not all over: a missing one is over. */
function stillRunning(item: Item, byId: ReadonlyMap<string, Item>): boolean {
  return (item.roster ?? []).some((c) => {
    const candidate = c.item === undefined ? undefined : byId.get(c.item);
    return candidate !== undefined && !statusIs(candidate.status, 'finished');
  });
}

/** Each candidate with what its work changed since `base`, as people compare them. */
function measured(
  repo: string,
  base: string | undefined,
  entries: readonly CandidateEntry[],
): Promise<CandidateEntry[]> {
  return Promise.all(
    entries.map(async (entry) => {
      const tip = entry.head ?? entry.branch;
      if (base === undefined || tip === undefined) return entry;
      const files = await fileChanges(repo, base, tip).catch(() => undefined);
      if (files === undefined) return entry;
      const sum = (key: 'added' | 'deleted') => files.reduce((n, f) => n + f[key], 0);
      return {
        ...entry,
        changes: { files: files.length, added: sum('added'), deleted: sum('deleted') },
      };
    }),
  );
}

/** What the item has spent on itself and its candidates so far. */
const spentOn = (item: Item, entries: readonly CandidateEntry[]) =>
  entries
    .filter((entry) => entry.item !== undefined)
    .reduce((sum, entry) => addUsd(sum, entry.costUsd ?? 0), item.costUsd);

/** Why no candidate passed, each in a line. */
function failuresOf(entries: readonly CandidateEntry[]): string {
  return `no candidate passed its gates: ${entries
    .map((e) => `${e.letter} (${e.cli}): ${(e.out ?? 'no commit').split('\n')[0] ?? ''}`)
    .join('; ')}`;
}

/** The candidates in an order of chance: which comes first tells the judge nothing. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The judge's verdict in the candidates' own letters (it knew them by the labels shown). */
function translated(
  verdict: JudgeVerdict,
  shown: readonly CandidateEntry[],
): Required<Pick<Judgement, 'ranking' | 'criteria'>> {
  const letterOf = (label: string) => shown[label.charCodeAt(0) - 65]!.letter;
  return {
    ranking: verdict.ranking.map(letterOf),
    criteria: Object.fromEntries(
      verdict.candidates.map((c) => [letterOf(c.candidate), c.criteria]),
    ),
  };
}
