import { statusIs, type ItemStatus, holderOf } from '../queue/item-status.js';
import { foreseenPath } from '../queue/foreseen.js';
import type { PlanSummary } from '../events/plan-summary.js';
import type { Item } from '../queue/item.js';
import { unrunnableItems } from '../queue/dependencies.js';
import { inSelectionOrder } from '../queue/select.js';
import type { Estimate, History, Profile } from './estimate.js';
import { fitsIn, nextPaced, type Candidate } from './pace.js';
import { headroomUsd, windowLengthMs, type WindowReport } from './windows.js';

/**
 * The runnable items a plan takes, the first in the queue's order: the night is simulated item
 * by item against the whole queue, and a fleet's queue of 100,000 would take minutes.
 */
export const PLAN_LIMIT = 2_000;

/** What the plan is made from: the queue, each item's profile, the archive's history. */
export interface PlanInput {
  items: readonly Item[];
  /** Runnable items past those given, which the plan leaves out. */
  beyond?: number;
  /** Each runnable item's profile, or why it would be refused. */
  profiles: ReadonlyMap<string, Profile | { refused: string }>;
  history: History;
  windows: readonly WindowReport[];
  /** `run.reserve`: the share of each window kept for the morning. */
  reserve: number;
  workers: number;
  now: number;
  /** `--until`: nothing starts after it. */
  deadline?: number;
  /** `--max-cost`: nothing starts once the run has spent it. */
  maxCostUsd?: number;
  /** `run.maxLimitWait`: the longest a night waits for a window's reset. */
  maxLimitWaitMs: number;
}

/** One item as the plan expects it to go. */
export interface PlannedItem {
  id: string;
  title: string;
  cli: string;
  persona?: string;
  model?: string;
  estimate: Estimate;
  startsAt: number;
  endsAt: number;
  /** It waits for a window's reset first (the window it would run out). */
  afterReset?: { kind: string; at: number };
  /** Not tonight: the window it needs runs out under the reserve, or the deadline comes. */
  left?: string;
  /** Left for a window: when it resets (epoch ms), when known. */
  leftUntil?: number;
  /** Planned: the statuses its success goes through after its session, the last where it rests. */
  through?: readonly ItemStatus[];
}

/** A window, and how far the night gets before it runs out under the reserve. */
export interface WindowPlan extends WindowReport {
  /** The dollars of work it leaves the night now (absent: no rate known, no limit planned). */
  headroomUsd?: number;
  /** Items of its CLI planned to start before it runs out. */
  itemsBefore: number;
  /** When it is likely to run out (absent: not tonight). */
  runsOutAt?: number;
}

/** Items of one persona, CLI and model, and what each likely costs. */
export interface PlanGroup {
  persona?: string;
  cli: string;
  model?: string;
  items: number;
  estimate: Estimate;
}

/** The night's forecast: `ralph plan`, the first lines of `ralph run`, the dashboard's banner. */
export interface NightPlan {
  madeAt: number;
  reserve: number;
  workers: number;
  deadline?: number;
  items: PlannedItem[];
  groups: PlanGroup[];
  windows: WindowPlan[];
  /** What the night likely does: its items, their cost and when the last ends. */
  likely: { items: number; costUsd: number; endsAt?: number };
  /** What it leaves for the morning. */
  left: { items: number; costUsd: number };
  /** Runnable items past those the plan takes (`PLAN_LIMIT`). */
  beyond: number;
  refused: { id: string; reason: string }[];
  unrunnable: { id: string; reason: string }[];
}

interface WindowState {
  /** The window as the plan reports it (its room as of now). */
  plan: WindowPlan;
  /** Its room in the simulation: the report's, then a whole window's after each reset. */
  headroom?: number;
  spent: number;
  resetsAt?: number;
  /** Just reset: its first item starts whatever it costs (one dearer than a window would wait forever). */
  fresh: boolean;
}

/**
 * The night simulated: runnable items started in the order the runner would start them
 * (paced), each taking its estimate's time on the first free worker and its cost out of its
 * CLI's windows; an item a window has no room for waits for the window's reset when the night
 * would wait for it, and is left for the morning otherwise.
 */
export function planNight(input: PlanInput): NightPlan {
  const simulated = input.items.map((item) => ({ ...item }));
  const byId = new Map(simulated.map((item) => [item.id, item]));
  const windows = input.windows.map<WindowState>((report) => {
    const headroom = headroomUsd(report, input.reserve);
    return {
      plan: { ...report, headroomUsd: headroom, itemsBefore: 0 },
      headroom,
      spent: 0,
      resetsAt: report.resetsAt,
      fresh: false,
    };
  });
  const workerFree = Array.from({ length: Math.max(1, input.workers) }, () => input.now);
  // When each item planned tonight rests where its dependents may run (its session's end, and
  // its review's usual time): what depends on it starts no sooner. An item runs once in a plan
  // (a scheduled one rests runnable again, at its next time).
  const ends = new Map<string, number>();
  const planned: PlannedItem[] = [];
  const refused: NightPlan['refused'] = [];
  const closed = new Map<string, Pick<PlannedItem, 'left' | 'leftUntil'>>();
  const spent = { usd: 0 };
  for (;;) {
    const worker = workerFree.indexOf(Math.min(...workerFree));
    const free = workerFree[worker] ?? input.now;
    const { ready, later } = readyAt(simulated, byId, ends, free);
    const candidates = candidatesOf(ready, input, refused);
    const next = nextPaced(candidates, roomOf(windows));
    if (next === undefined) {
      // Nothing can start when this worker is free: it waits for the next dependency to end.
      if (later === undefined) break;
      workerFree[worker] = later;
      continue;
    }
    const item = planItem(next, input, windows, { workerFree, worker, spent }, closed);
    planned.push(item);
    const own = byId.get(next.item.id) as Item;
    // Left for the morning, it satisfies no dependent tonight; planned, it goes where the table
    // takes a success (its review, its landing): its dependents wait for where it rests.
    if (item.left === undefined) {
      const path = foreseenPath(
        own,
        (input.profiles.get(own.id) as Profile).stages,
        `plan-${own.id}`,
        item.endsAt,
      );
      Object.assign(own, path.item);
      item.through = path.through;
      const review = path.through.some((status) => holderOf(status) === 'reviewer')
        ? input.history.reviewSeconds()
        : 0;
      ends.set(own.id, item.endsAt + review * 1000);
    } else own.status = 'parked';
  }
  return summarise(input, planned, refused, windows, simulated);
}

/**
 * The runnable items whose dependencies are done by `at`, in the queue's order; and the
 * earliest time another would be, when none is.
 */
function readyAt(
  simulated: readonly Item[],
  byId: ReadonlyMap<string, Item>,
  ends: ReadonlyMap<string, number>,
  at: number,
): { ready: Item[]; later?: number } {
  const ready: Item[] = [];
  let later: number | undefined;
  for (const item of simulated) {
    if (!statusIs(item.status, 'runnable') || ends.has(item.id)) continue;
    const done = item.dependsOn.every((id) => {
      const dependency = byId.get(id);
      return dependency !== undefined && statusIs(dependency.status, 'satisfiesDependents');
    });
    if (!done) continue;
    const after = Math.max(-Infinity, ...item.dependsOn.map((id) => ends.get(id) ?? -Infinity));
    if (after <= at) ready.push(item);
    else later = Math.min(later ?? Infinity, after);
  }
  return { ready: inSelectionOrder(ready), later };
}

/** The items ready, with their forecasts; those whose settings are refused set aside. */
function candidatesOf(
  ready: readonly Item[],
  input: PlanInput,
  refused: NightPlan['refused'],
): Candidate[] {
  const candidates: Candidate[] = [];
  for (const item of ready) {
    const profile = input.profiles.get(item.id);
    if (profile === undefined || 'refused' in profile) {
      refused.push({ id: item.id, reason: profile?.refused ?? 'its settings cannot be read' });
      item.status = 'failed';
      continue;
    }
    candidates.push({ item, cli: profile.cli, estimate: input.history.estimate(profile) });
  }
  return candidates;
}

/** The dollars each CLI may still spend: its tightest window's room. */
function roomOf(windows: readonly WindowState[]): Map<string, number> {
  const room = new Map<string, number>();
  for (const window of windows) {
    if (window.headroom === undefined) continue;
    const left = Math.max(0, window.headroom - window.spent);
    room.set(window.plan.cli, Math.min(room.get(window.plan.cli) ?? Infinity, left));
  }
  return room;
}

function planItem(
  next: Candidate,
  input: PlanInput,
  windows: WindowState[],
  { workerFree, worker, spent }: { workerFree: number[]; worker: number; spent: { usd: number } },
  closed: Map<string, Pick<PlannedItem, 'left' | 'leftUntil'>>,
): PlannedItem {
  const { item, estimate, cli } = next;
  const profile = input.profiles.get(item.id) as Profile;
  let startsAt = Math.max(
    workerFree[worker] ?? input.now,
    ...[item.notBefore, item.retryAfter].map((t) => (t === undefined ? 0 : Date.parse(t))),
  );
  const base = {
    id: item.id,
    title: item.title,
    cli,
    persona: profile.persona,
    model: profile.model,
    estimate,
  };
  const shut = closed.get(cli);
  if (shut !== undefined) return { ...base, startsAt, endsAt: startsAt, ...shut };
  if (input.maxCostUsd !== undefined && spent.usd >= input.maxCostUsd)
    return {
      ...base,
      startsAt,
      endsAt: startsAt,
      left: "the run's cost cap (--max-cost) comes first",
    };
  const own = windows.filter((w) => w.plan.cli === cli && w.headroom !== undefined);
  const binding = own.filter(
    (w) => !w.fresh && !fitsIn(w.spent + estimate.costUsd, w.headroom as number),
  );
  let afterReset: PlannedItem['afterReset'];
  if (binding.length > 0) {
    const resets = binding.map((w) => w.resetsAt);
    const at = resets.includes(undefined) ? undefined : Math.max(...(resets as number[]));
    for (const w of binding) {
      w.plan.runsOutAt ??= startsAt;
    }
    const kind = binding.map((w) => w.plan.kind).join(', ');
    if (
      at === undefined ||
      at - input.now > input.maxLimitWaitMs ||
      (input.deadline !== undefined && at >= input.deadline)
    ) {
      const left = `${cli}'s ${kind} window runs out under run.reserve`;
      closed.set(cli, { left, leftUntil: at });
      return { ...base, startsAt, endsAt: startsAt, left, leftUntil: at };
    }
    for (const w of binding) resetWindow(w, at, input.reserve);
    startsAt = Math.max(startsAt, at);
    afterReset = { kind, at };
  }
  if (input.deadline !== undefined && startsAt >= input.deadline)
    return { ...base, startsAt, endsAt: startsAt, left: 'the deadline (--until) comes first' };
  for (const w of own) {
    w.spent += estimate.costUsd;
    w.fresh = false;
    if (w.plan.runsOutAt === undefined) w.plan.itemsBefore++;
  }
  const endsAt = startsAt + estimate.seconds * 1000;
  workerFree[worker] = endsAt;
  spent.usd += estimate.costUsd;
  return { ...base, startsAt, endsAt, afterReset };
}

/** A window past its reset: empty again, and its next reset one window's length on. */
function resetWindow(window: WindowState, at: number, reserve: number): void {
  const length = windowLengthMs(window.plan.kind);
  window.spent = 0;
  window.fresh = true;
  window.resetsAt = length === undefined ? undefined : at + length;
  window.headroom = headroomUsd({ ...window.plan, utilization: 0 }, reserve);
}

function summarise(
  input: PlanInput,
  planned: PlannedItem[],
  refused: NightPlan['refused'],
  windows: readonly WindowState[],
  simulated: readonly Item[],
): NightPlan {
  const tonight = planned.filter((p) => p.left === undefined);
  const left = planned.filter((p) => p.left !== undefined);
  const plannedIds = new Set([...planned.map((p) => p.id), ...refused.map((r) => r.id)]);
  const cannot = new Map(unrunnableItems(input.items).map((u) => [u.id, u.reason]));
  const unrunnable = simulated
    .filter((item) => statusIs(item.status, 'runnable') && !plannedIds.has(item.id))
    .map((item) => ({
      id: item.id,
      reason: cannot.get(item.id) ?? 'it depends on an item left for the morning',
    }));
  const sum = (items: readonly PlannedItem[]) =>
    items.reduce((total, p) => total + p.estimate.costUsd, 0);
  return {
    madeAt: input.now,
    reserve: input.reserve,
    workers: input.workers,
    deadline: input.deadline,
    items: planned,
    groups: groupsOf(planned),
    windows: windows.map((w) => w.plan),
    likely: {
      items: tonight.length,
      costUsd: sum(tonight),
      endsAt: tonight.length === 0 ? undefined : Math.max(...tonight.map((p) => p.endsAt)),
    },
    left: { items: left.length, costUsd: sum(left) },
    beyond: input.beyond ?? 0,
    refused,
    unrunnable,
  };
}

function groupsOf(planned: readonly PlannedItem[]): PlanGroup[] {
  const groups = new Map<string, PlanGroup>();
  for (const p of planned) {
    const key = `${p.persona ?? ''}\n${p.cli}\n${p.model ?? ''}`;
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, {
        persona: p.persona,
        cli: p.cli,
        model: p.model,
        items: 1,
        estimate: p.estimate,
      });
    else group.items++;
  }
  return [...groups.values()];
}

/** The plan in brief: what the first lines of `ralph run` and the dashboard's banner say. */

const isoOf = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString();

export function planSummary(plan: NightPlan): PlanSummary {
  return {
    items: plan.likely.items,
    costUsd: plan.likely.costUsd,
    endsAt: isoOf(plan.likely.endsAt),
    left: plan.left.items,
    leftCostUsd: plan.left.costUsd,
    ...(plan.beyond > 0 ? { beyond: plan.beyond } : {}),
    groups: plan.groups.map((g) => ({
      persona: g.persona,
      cli: g.cli,
      model: g.model,
      items: g.items,
      costUsd: g.estimate.costUsd,
      seconds: g.estimate.seconds,
      basis: g.estimate.basis.kind,
      ...(g.estimate.basis.kind === 'history'
        ? { sessions: g.estimate.basis.sessions, succeeded: g.estimate.basis.succeeded }
        : {}),
    })),
    windows: plan.windows.map((w) => ({
      cli: w.cli,
      kind: w.kind,
      utilization: w.utilization,
      resetsAt: isoOf(w.resetsAt),
      runsOutAt: isoOf(w.runsOutAt),
      itemsBefore: w.itemsBefore,
      headroomUsd: w.headroomUsd,
    })),
    paced: isPaced(plan),
  };
}

/** Whether pacing orders the night: some window's room cannot hold all the work waiting. */
export function isPaced(plan: NightPlan): boolean {
  return plan.windows.some((w) => w.headroomUsd !== undefined && w.runsOutAt !== undefined);
}
