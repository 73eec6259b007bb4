/** Permission modes the claude CLI accepts (kept apart from the schema so the CLI starts fast). */
export const PERMISSION_MODES = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'default',
  'dontAsk',
  'plan',
] as const;
