import { z } from '../lib/zod.js';
import { ItemIdSchema, ItemSchema } from '../queue/item.js';
import { ITEM_STATUSES } from '../queue/item-status.js';

// Every request's query and body, validated here and described by GET /openapi.json.

const { shape } = ItemSchema;
const flag = z.enum(['0', '1']).optional();
const since = z.string().max(100).optional();

/** A whole number in a query, with one message whatever is wrong with it. */
const wholeNumber = (min: number, max: number) => {
  const error = `a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
  return z
    .string()
    .regex(/^\d{1,16}$/, error)
    .transform(Number)
    .pipe(z.number().int().min(min, error).max(max, error));
};

/** `GET /items`: statuses, comma-separated. */
export const ItemsQuery = z.object({
  status: z
    .string()
    .transform((text) => text.split(',').map((s) => s.trim()))
    .pipe(z.array(z.enum(ITEM_STATUSES)))
    .optional(),
});

/**
 * `POST /items`: the fields `ralph add` sets, under the item's own names and schemas; a
 * `notBefore` is any time `Date` reads (made ISO), `replace` replaces an item of the same id.
 */
export const NewItemSchema = z.strictObject({
  title: z.string(),
  id: shape.id.optional(),
  body: z.string().optional(),
  priority: shape.priority.optional(),
  maxAttempts: shape.maxAttempts,
  maxTurns: shape.maxTurns,
  maxBudgetUsd: shape.maxBudgetUsd,
  timeout: shape.timeout,
  idleTimeout: shape.idleTimeout,
  model: shape.model,
  workDir: shape.workDir,
  agent: shape.agent,
  tools: shape.tools,
  allowedTools: shape.allowedTools,
  disallowedTools: shape.disallowedTools,
  permissionMode: shape.permissionMode,
  dependsOn: shape.dependsOn.optional(),
  notBefore: z.string().optional(),
  schedule: shape.schedule,
  vars: shape.vars.optional(),
  replace: z.boolean().optional(),
});

export const ItemParams = z.object({ id: ItemIdSchema });

/** `force=1`: remove an item others depend on, retry or cancel a done one. */
export const ForceQuery = z.object({ force: flag });

/** Session ids are UUIDs ralph made; anything else never names a file. */
export const SessionIdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

export const SessionParams = z.object({ id: SessionIdSchema });

/** `GET /sessions`: the filters of `ralph sessions`, and a page. */
export const SessionsQuery = z.object({
  item: z.string().max(200).optional(),
  status: z.string().max(100).optional(),
  since,
  limit: wholeNumber(1, 1000).default(50),
  offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
});

/** A byte offset in a session's stream. */
export const StreamOffset = z.coerce.number().int().min(0).default(0);

/** `GET /sessions/:id/events`: a page after an offset, or (`follow=1`) an event stream. */
export const SessionEventsQuery = z.object({ after: StreamOffset, follow: flag });

export const ReportQuery = z.object({ since });

export const PauseBody = z.strictObject({
  reason: z.string().trim().min(1).max(500).optional(),
  afterCurrent: z.boolean().optional(),
});

export const EmptyBody = z.strictObject({});
