import * as z from '../lib/zod.js';
import { ItemAskSchema, ItemIdSchema, ItemSettingsSchema } from '../queue/item.js';
import { ITEM_STATUSES } from '../queue/item-status.js';
import { RULE_ID } from '../lessons/state.js';

// Every request's query and body, validated here and described by GET /openapi.json.

const shape = ItemAskSchema.shape;
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

/** Fields an item has that a request may not set, and why: said in the refusal. */
const NOT_OVER_HTTP = {
  gates: 'gates are commands run on this machine: set them in ralph.config.json or a persona',
  bodyFile:
    'bodyFile names a file on this machine: send the task text as "body" (ralph add --body-file reads it for you)',
  source:
    'source says where ralph import took the item from (an issue it writes back to): run ralph import',
} as const;

/** What a request may set: what the item asks and its settings, never its life. */
const settable = Object.fromEntries(
  Object.entries({ ...ItemAskSchema.shape, ...ItemSettingsSchema.shape }).filter(
    ([key]) => !(key in NOT_OVER_HTTP),
  ),
) as Omit<typeof ItemAskSchema.shape & typeof ItemSettingsSchema.shape, keyof typeof NOT_OVER_HTTP>;

/**
 * `POST /items`: the item's own fields under their own names and schemas (whatever `ralph add`
 * may set, `cli`, `git` and `base` included), less its state and what must not come over HTTP.
 * A `notBefore` is any time `Date` reads (made ISO); `replace` replaces an item of the same id.
 */
export const NewItemSchema = z.strictObject({
  ...settable,
  title: z.string(),
  id: shape.id.optional(),
  priority: shape.priority.optional(),
  dependsOn: shape.dependsOn.optional(),
  vars: shape.vars.optional(),
  notBefore: z.string().optional(),
  replace: z.boolean().optional(),
  ...Object.fromEntries(
    Object.entries(NOT_OVER_HTTP).map(([key, why]) => [key, z.never({ error: why }).optional()]),
  ),
});

export const ItemParams = z.object({ id: ItemIdSchema });

/** `force=1`: remove an item others depend on, retry or cancel a done one. */
export const ForceQuery = z.object({ force: flag });

/** `cancel=1`: cancel the stopped item instead of putting it back in line. */
export const StopQuery = z.object({ cancel: flag, requeue: flag });

/** `POST /items/:id/messages`: a message to the item's agent (its length is checked with the item). */
export const MessageRequest = z.strictObject({ text: z.string() });

/** How long the person had the item's page open before deciding (a day at most). */
const reviewMs = z
  .int()
  .nonnegative()
  .max(86_400_000)
  .optional()
  .describe("Milliseconds the item's page was open before the decision, for the report.");

/** `POST /items/:id/accept`: nothing but, from the item's page, the time it was open. */
export const AcceptRequest = z.strictObject({ reviewMs });

/** `POST /items/:id/reject`: the note its next attempt is told, or cancel it. */
export const RejectRequest = z.strictObject({
  note: z.string().optional(),
  cancel: z.boolean().optional(),
  reviewMs,
});

/** A rule's id in a path (`/rules/R3/accept`). */
export const RuleParams = z.object({
  id: z.string().regex(RULE_ID, 'a rule id such as R3'),
});

/** `POST /rules/:id/accept|reject|retire`: why, kept with the decision (a rejection's is told to the proposer). */
export const RuleDecisionRequest = z.strictObject({ note: z.string().max(2_000).optional() });

/** `POST /items/:id/defer`: until when (`3d`, `12h`, or a time). */
export const DeferRequest = z.strictObject({ until: z.string().min(1), reviewMs });

/** `GET /review`: `all=1`: deferred items too. */
export const ReviewQuery = z.object({ all: flag });

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
