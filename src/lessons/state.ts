import * as z from '../lib/zod.js';
import { MAX_RULE_CHARS, RULE_HOMES } from './config-schema.js';

// What the lessons room keeps in the workspace's state (`state/lessons.json`): the lessons
// gathered with their evidence, the proposals made of them, and the rules, each with what a
// person decided of it. Nothing in it changes what an agent is told until a rule is accepted.

/** Where a lesson came from. */
export const LESSON_KINDS = [
  /** A person rejected an item's work, with a note. */
  'rejection',
  /** A person accepted an item's work over its reviewer's findings: they were not a problem. */
  'dismissed',
  /** A reviewer's findings that the author then fixed. */
  'fixed',
  /** A gate failed the same way on more than one item. */
  'gate',
  /** A landing found its branch in conflict with the target. */
  'landing',
  /** A worktree's setup failed. */
  'setup',
] as const;
export type LessonKind = (typeof LESSON_KINDS)[number];

const Timestamp = z.string().min(1);

export const LessonSchema = z.strictObject({
  id: z.string().regex(/^L\d+$/),
  /** What it is a lesson of, once (`decision:<id>`, `gate:<name>`): gathered again, it is the same lesson. */
  key: z.string().min(1),
  kind: z.enum(LESSON_KINDS),
  /** What was said: the person's note, the findings, the failure. */
  text: z.string(),
  /** The items it rests on, and the decisions and sessions behind it. */
  items: z.array(z.string()).min(1),
  decisions: z.array(z.string()).default([]),
  sessions: z.array(z.string()).default([]),
  /** Git mode: the change it is about, from its base to the commit decided on. */
  change: z.strictObject({ base: z.string(), head: z.string() }).optional(),
  /** The task's own text where its source is not trusted (an imported issue): fenced, never a rule word for word. */
  untrusted: z.string().optional(),
  at: Timestamp,
  /** The proposal it was given to. */
  proposal: z.string().optional(),
});
export type Lesson = z.output<typeof LessonSchema>;

export const RULE_KINDS = ['follow', 'dismiss'] as const;

export const RULE_STATUSES = ['proposed', 'accepted', 'rejected', 'retired'] as const;

const ByWhom = z.strictObject({
  by: z.string().min(1),
  at: Timestamp,
  note: z.string().optional(),
});

/** A rule's id as a person types it (`R3`, `r3`). */
export const RULE_ID = /^R\d{1,9}$/i;

export const RuleSchema = z.strictObject({
  id: z.string().regex(/^R\d{1,9}$/),
  text: z.string().min(1).max(MAX_RULE_CHARS),
  /** `follow`: a rule every agent follows; `dismiss`: a finding the reviewer is not to raise. */
  kind: z.enum(RULE_KINDS),
  /** Globs of repository paths it concerns; none: the whole repository. */
  scope: z.array(z.string().min(1)).default([]),
  /** The lessons it rests on. */
  evidence: z.array(z.string()).min(1),
  proposal: z.string(),
  status: z.enum(RULE_STATUSES),
  proposedAt: Timestamp,
  decided: ByWhom.optional(),
  retired: ByWhom.optional(),
  /** Accepted: where it lives; in the repository, the item whose landing carries it there. */
  into: z.enum(RULE_HOMES).optional(),
  file: z.string().optional(),
  landingItem: z.string().optional(),
});
export type Rule = z.output<typeof RuleSchema>;

export const ProposalSchema = z.strictObject({
  id: z.string().regex(/^P\d+$/),
  at: Timestamp,
  cli: z.string(),
  session: z.string().optional(),
  costUsd: z.number().nonnegative().default(0),
  /** The lessons it was given. */
  lessons: z.array(z.string()),
  /** The rules it proposed. */
  rules: z.array(z.string()).default([]),
  /** Rules it wrote that ralph would not take, and why. */
  dropped: z.array(z.strictObject({ text: z.string(), reason: z.string() })).default([]),
  /** Why it proposed nothing (it failed, or its answer failed its check). */
  failure: z.string().optional(),
});
export type Proposal = z.output<typeof ProposalSchema>;

/** A gate's failures seen so far, by item: a lesson once it has failed on two. */
export const GateFailuresSchema = z.record(
  z.string(),
  z.strictObject({ items: z.array(z.string()), sessions: z.array(z.string()), tail: z.string() }),
);

export const LessonsStateSchema = z.strictObject({
  version: z.literal(1),
  lessons: z.array(LessonSchema).default([]),
  proposals: z.array(ProposalSchema).default([]),
  rules: z.array(RuleSchema).default([]),
  gateFailures: GateFailuresSchema.default({}),
});
export type LessonsState = z.output<typeof LessonsStateSchema>;

export const EMPTY_LESSONS: LessonsState = {
  version: 1,
  lessons: [],
  proposals: [],
  rules: [],
  gateFailures: {},
};

/** The next id of a kind (`L`, `R`, `P`): one past the highest given. */
export function nextId(prefix: 'L' | 'R' | 'P', taken: readonly { id: string }[]): string {
  const highest = Math.max(0, ...taken.map((t) => Number(t.id.slice(1)) || 0));
  return `${prefix}${highest + 1}`;
}

/** The lessons no proposal has been given yet. */
export const newLessons = (state: LessonsState): Lesson[] =>
  state.lessons.filter((lesson) => lesson.proposal === undefined);
