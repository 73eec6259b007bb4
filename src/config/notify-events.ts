// Apart from the schema: the CLI's flags name them without loading the validation library.

/**
 * What a person is told of, as it happens: the night ended (a digest), an item failed, an
 * agent asks a person something, the night paused (its reason; a usage limit with its reset),
 * the runner stopped by a signal or found dead at the next start, a cost cap reached.
 */
export const NOTIFY_EVENTS = [
  'night_ended',
  'item_failed',
  'needs_input',
  'night_paused',
  'runner_stopped',
  'cost_cap',
] as const;

export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** Where a notification goes: a JSON webhook, a Slack incoming webhook, ntfy, or a command. */
export const NOTIFIER_KINDS = ['webhook', 'slack', 'ntfy', 'command'] as const;
