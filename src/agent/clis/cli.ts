import type { CliName } from '../../config/cli-names.js';
import type { SessionSettings } from '../../config/schema.js';
import type { Decoded, DecoderFactory } from '../../stream/decoder.js';
import type { Argv } from '../argv.js';
import type { ResolvedSettings } from '../settings.js';

/** Everything that decides an agent CLI's command line for one session. */
export interface Invocation {
  /** The executable and any leading arguments from the configuration. */
  command: readonly string[];
  /** The assembled prompt, whole (pi appends it to its system prompt; codex, gemini and opencode read it). */
  promptFile: string;
  /**
   * The prompt in its two parts, for a CLI that takes a system prompt of ralph's and a first
   * message (claude): the part without anything of the item's, to be written to `file` and
   * appended to its system prompt (a prompt cache serves it from the item before), and the
   * item's assignment, for its first message.
   */
  system: { file: string; text: string; assignment: string };
  /** Where permission rules for the session go, for a CLI that reads them from a file. */
  policyFile: string;
  /** Where the lines of a CLI that reads its input as stream-json on stdin are kept. */
  inputFile: string;
  /** claude's `-p` argument: the item itself travels in the prompt file. */
  initialPrompt: string;
  /** The item's title and id, for a CLI that names its sessions (saves it asking a model). */
  title: string;
  /** ralph's session id (a UUID), for a CLI that takes it as its own. */
  sessionId: string;
  /** The CLI's conversation to resume instead of starting a new one. */
  resume?: string;
  settings: ResolvedSettings;
  /** claude's `--settings` file. */
  settingsFile?: string;
  /** The user's explicit opt-in to skip every permission check. */
  yolo: boolean;
  /**
   * Whether the session runs inside ralph's sandbox, the wall that holds it (a CLI whose own
   * sandbox cannot run inside another turns its own off).
   */
  sandboxed: boolean;
  /**
   * The shape its final answer must have (a reviewer's verdict), for a CLI that can be held to
   * one (claude's `--json-schema`, codex's `--output-schema`, written to `file`); the others
   * are asked for it in the prompt alone.
   */
  outputSchema?: { file: string; schema: Readonly<Record<string, unknown>> };
  /** The agent's environment, filtered (a CLI may add to what it finds there). */
  env: Readonly<Record<string, string>>;
}

/** The command of one session, and variables the CLI needs besides the filtered environment. */
export interface CliCommand {
  argv: Argv;
  env?: Record<string, string>;
  /** Files the CLI reads (its permission rules), written before it starts. */
  files?: { path: string; text: string }[];
  /** Directories the CLI needs (a temp dir of its own), made private before it starts. */
  dirs?: string[];
}

/** Who holds a session to one of its limits. */
export type Enforcer =
  /** The CLI itself, given the limit as a flag. */
  | 'cli'
  /** ralph, from what the stream reports while the session runs. */
  | 'ralph'
  /** Nobody while it runs: the CLI reports the figure only at the end. */
  | 'none';

/** What differs between the agent CLIs ralph drives; everything else is ralph's own. */
export interface AgentCli {
  name: CliName;
  /** The variables holding the CLI's own credentials: passed to it through the secret filter. */
  credentials: readonly string[];
  /** Who holds a session to its turn limit and to its USD budget. */
  enforces: { maxTurns: Enforcer; budget: Enforcer };
  /**
   * Whether the CLI reads the prompt file on stdin (claude and pi have it appended to their
   * system prompt).
   */
  promptOnStdin: boolean;
  /**
   * A person's message as a line of the CLI's stdin, for a CLI that reads user messages there
   * while it runs (its command gives it a live stdin): how a message reaches it mid-task.
   */
  messageLine?: (text: string) => string;
  /** Whether the CLI takes ralph's session id as its own conversation id. */
  takesSessionId: boolean;
  /**
   * Why the settings an item or its persona asks for cannot be honoured by this CLI (nothing:
   * they can). `explicit` is what the item and persona set, before the workspace defaults.
   */
  refusals(settings: ResolvedSettings, explicit: SessionSettings): string[];
  command(invocation: Invocation): CliCommand;
  decoder: DecoderFactory;
  /**
   * Events the CLI keeps outside its stream, read once it has exited: codex reports no command
   * its sandbox or approval policy refused, but its own session log has them.
   */
  afterRun?(run: {
    conversationId?: string;
    env: Readonly<Record<string, string>>;
  }): Promise<Decoded[]>;
  /** How a person gets the CLI, for messages when it is missing. */
  install: string;
  /** The versions ralph is tested with (the suite pins one): major and minor. */
  tested: { major: number; minor: number };
  /** Where a logged-in CLI keeps its credentials (under HOME), and how one logs in. */
  login: { file: string; how: string };
  /** How to tell, before a night and without a token spent, whether it can log in. */
  loginCheck?: LoginCheck;
  /** What the CLI needs inside ralph's sandbox. */
  sandbox: SandboxNeeds;
}

/**
 * A CLI's own answer to "are you logged in?", no token spent: its status command, and for an
 * API key a request to its API that proves the key (a list of models).
 */
export interface LoginCheck {
  /** The status command's arguments after the CLI's command. */
  status?: {
    args: readonly string[];
    /** What it said: a problem, or undefined when logged in (or when it cannot tell). */
    verdict(ran: { code: number | null; stdout: string }, now: number): string | undefined;
    /** Whether it said in so many words that it is logged in (none: it never says). */
    loggedIn?(ran: { code: number | null; stdout: string }): boolean;
  };
  /** The request that proves the API key in use, when one is (undefined: none to prove). */
  keyProbe?(
    env: Readonly<Record<string, string>>,
  ): { url: string; headers: Record<string, string> } | undefined;
}

/** What a CLI needs inside ralph's sandbox (`sandbox.kind: "bwrap"`). */
export interface SandboxNeeds {
  /** Where it keeps its state (settings, credentials, conversations), read-write inside. */
  state(env: Readonly<Record<string, string>>, home: string): string[];
  /** Its API's hosts (`host:port`): from its base-URL variables, else its vendor's. */
  apiHosts(env: Readonly<Record<string, string>>): string[];
  /** Whether it turns its own sandbox off inside ralph's (which then holds it alone). */
  turnsOwnOff?: boolean;
  /** Why it cannot work inside ralph's sandbox with these settings (undefined: it can). */
  refusal?(settings: ResolvedSettings): string | undefined;
}
