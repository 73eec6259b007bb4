import * as z from '../lib/zod.js';
import { EnvName } from '../config/values.js';
import { NOTIFY_EVENTS } from '../config/notify-events.js';

const HttpUrl = z
  .url({ protocol: /^https?$/, error: 'an http(s) URL' })
  .describe('Where it is sent.');

/** Which events a notifier is sent (default: every one). */
const NotifierEvents = z
  .array(z.enum(NOTIFY_EVENTS))
  .min(1)
  .describe('The events it is sent (default: every one).')
  .optional();

/** A notifier reached over HTTP: its URL given, or named by a variable (a Slack URL is a secret). */
const HttpNotifier = <K extends string>(kind: K) =>
  z.strictObject({
    kind: z.literal(kind).describe('`webhook`, `slack`, `ntfy` or `command`.'),
    url: HttpUrl.optional(),
    urlEnv: EnvName.describe('The variable holding its URL (a Slack URL is a secret).').optional(),
    events: NotifierEvents,
  });

export const NotifierSchema = z
  .discriminatedUnion('kind', [
    HttpNotifier('webhook').extend({
      secretEnv: EnvName.optional().describe(
        "Signs each body: `X-Ralph-Signature: sha256=<HMAC of the body>` with this variable's value.",
      ),
    }),
    HttpNotifier('slack'),
    HttpNotifier('ntfy').extend({
      tokenEnv: EnvName.optional().describe(
        'An access token for the topic (`Authorization: Bearer`), by its variable.',
      ),
      priority: z.int().min(1).max(5).describe("ntfy's priority, 1 to 5.").optional(),
    }),
    z.strictObject({
      kind: z.literal('command').describe('`webhook`, `slack`, `ntfy` or `command`.'),
      command: z
        .array(z.string().min(1))
        .min(1, 'give the program and its arguments')
        .describe('argv, run without a shell; the notification as JSON on its standard input.'),
      events: NotifierEvents,
    }),
  ])
  .superRefine((notifier, ctx) => {
    if (notifier.kind === 'command') return;
    if ((notifier.url === undefined) === (notifier.urlEnv === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'give "url", or "urlEnv" (the variable holding it), one of the two',
      });
  });

export type NotifierConfig = z.output<typeof NotifierSchema>;
