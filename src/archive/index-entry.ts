import * as z from '../lib/zod.js';
import { SessionTokensSchema, UsageWindowsSchema } from './record.js';
import { ASKED_ROLES } from '../lib/session-roles.js';

/** One line of `docs/sessions/index.jsonl`: enough to list and report without opening records. */
export const IndexEntrySchema = z.looseObject({
  sessionId: z.string(),
  itemId: z.string(),
  itemTitle: z.string(),
  status: z.string(),
  outcome: z.string(),
  message: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  durationMs: z.number().optional(),
  turns: z.number().optional(),
  toolCalls: z.number(),
  costUsd: z.number(),
  /** The cost is an estimate from the session's tokens (its CLI reports none). */
  costEstimated: z.boolean().optional(),
  /** Its tokens, in ralph's names for every CLI. */
  tokens: SessionTokensSchema.optional(),
  /** What it spent before its first tool call: its tokens (of every kind), their share of its cost. */
  opening: z.object({ tokens: z.number(), costUsd: z.number().optional() }).optional(),
  /** The agent CLI that ran it (lines of older versions: claude). */
  cli: z.string().default('claude'),
  /** Run on a fallback: the CLI it stood in for. */
  fallbackFrom: z.string().optional(),
  persona: z.string().optional(),
  /** The model its CLI reported. */
  model: z.string().optional(),
  /** Its subscription's usage windows as last reported (claude's `rate_limit_event`). */
  windows: UsageWindowsSchema.optional(),
  /** `reviewer`: it reviewed its item's work (absent: it did the work). */
  role: z.enum(ASKED_ROLES).optional(),
  /** The sandbox's refusals: how many, and the distinct `host:port`s refused (first hundred). */
  egressBlocked: z.number().optional(),
  blockedHosts: z.array(z.string()).optional(),
  /** Git mode: the item's branch. */
  branch: z.string().optional(),
  /** Git mode: what its branch changed since its base (the first hundred paths). */
  changes: z
    .object({
      files: z.number(),
      added: z.number(),
      deleted: z.number(),
      paths: z.array(z.string()),
    })
    .optional(),
  /** It ended asking a person something: no success, its item waits for an answer. */
  asked: z.boolean().optional(),
  /** The tool calls its CLI refused it (claude's permission denials). */
  denials: z.number().optional(),
  /** A fleet's index: the machine that ran it, and where its archive is there. */
  host: z.string().optional(),
  archive: z.string().optional(),
});

export type IndexEntry = z.output<typeof IndexEntrySchema>;
