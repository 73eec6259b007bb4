import path from 'node:path';

/** The files of one archived session, all named by its session id. */
export interface SessionFiles {
  stdout: string;
  stderr: string;
  record: string;
  summary: string;
  /** The whole prompt ralph assembled for the session. */
  prompt: string;
  /** Its part without the item's (claude's appended system prompt, the same for every item). */
  system: string;
  context: string;
  /** The quality gates' commands and output. */
  gates: string;
  /** The setup's (or maintenance's) commands and output, run in its worktree before it. */
  setup: string;
  /** Its services' commands and output (`environment.services`). */
  services: string;
  /** The land gates' commands and output, when the session's work was landed. */
  land: string;
  /** The permission rules ralph wrote for a CLI that reads them from a file (gemini). */
  policy: string;
  /** What a CLI that reads stream-json on stdin was given there: its first prompt, then messages. */
  input: string;
  /** The shape a reviewer's answer is held to, for a CLI that reads it from a file (codex). */
  schema: string;
}

/** Paths of a session's files in the sessions directory; `sessionId` is a UUID. */
export function sessionFiles(sessionsDir: string, sessionId: string): SessionFiles {
  const at = (suffix: string) => path.join(sessionsDir, `${sessionId}${suffix}`);
  return {
    stdout: at('.ndjson'),
    stderr: at('.err'),
    record: at('.json'),
    summary: at('-summary.md'),
    prompt: at('-prompt.md'),
    system: at('-system.md'),
    context: at('-context.json'),
    gates: at('-gates.log'),
    setup: at('-setup.log'),
    services: at('-services.log'),
    land: at('-land.log'),
    policy: at('-policy.toml'),
    input: at('-input.jsonl'),
    schema: at('-schema.json'),
  };
}
