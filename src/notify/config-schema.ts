import * as z from '../lib/zod.js';
import { EnvName } from '../config/values.js';
import { NOTIFY_EVENTS } from '../config/notify-events.js';

const HttpUrl = z.url({ protocol: /^https?$/, error: 'an http(s) URL' });

/** Which events a notifier is sent (default: every one). */
const NotifierEvents = z.array(z.enum(NOTIFY_EVENTS)).min(1).optional();

/** A notifier reached over HTTP: its URL given, or named by a variable (a Slack URL is a secret). */
const HttpNotifier = <K extends string>(kind: K) =>
  z.strictObject({
    kind: z.literal(kind),
    url: HttpUrl.optional(),
    urlEnv: EnvName.optional(),
    events: NotifierEvents,
  });

export const NotifierSchema = z
  .discriminatedUnion('kind', [
    HttpNotifier('webhook').extend({
      /** Signs each body: `X-Ralph-Signature: sha256=<HMAC of the body>` with this variable's value. */
      secretEnv: EnvName.optional(),
    }),
    HttpNotifier('slack'),
    HttpNotifier('ntfy').extend({
      /** An access token for the topic (`Authorization: Bearer`), by its variable. */
      tokenEnv: EnvName.optional(),
      priority: z.int().min(1).max(5).optional(),
    }),
    z.strictObject({
      kind: z.literal('command'),
      /** argv, run without a shell; the notification as JSON on its standard input. */
      command: z.array(z.string().min(1)).min(1, 'give the program and its arguments'),
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
