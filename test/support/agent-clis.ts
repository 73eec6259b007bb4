// The agent CLIs besides claude, each its real binary against a fake of its model API, as the
// shared end-to-end scenarios drive them: what differs between them, and nothing else.
import type { CliName } from '../../src/config/cli-names.js';
import {
  conversationOf as geminiConversation,
  lastFunctionResponse,
  type FakeGemini,
  type GeminiRequest,
} from './fake-gemini.js';
import {
  inputItems,
  lastToolOutput,
  type FakeOpenAi,
  type ModelReply,
  type OpenAiRequest,
} from './fake-openai.js';
import { OPENAI_TEST_KEY, closeFakeOpenAiAfterEach, realCodexWorkspace } from './real-codex.js';
import { GEMINI_TEST_KEY, closeFakeGeminiAfterEach, realGeminiWorkspace } from './real-gemini.js';
import { closeFakeOpencodeApiAfterEach, realOpencodeWorkspace } from './real-opencode.js';
import { closeFakePiApiAfterEach, realPiWorkspace } from './real-pi.js';

type Request = OpenAiRequest | GeminiRequest;

/** What the scenarios need to know of one CLI. */
export interface CliHarness {
  name: Exclude<CliName, 'claude'>;
  setup(
    respond: (request: Request, index: number) => ModelReply,
    config: Record<string, unknown>,
  ): Promise<{ root: string; env: Record<string, string>; api: FakeOpenAi | FakeGemini }>;
  closeAfterEach(): void;
  /** The output of the last tool call the request feeds back to the model. */
  toolOutput(request: Request): string | undefined;
  /** The conversation the request carries, as text. */
  conversation(request: Request): string;
  /** The header that carries the key, and its value. */
  auth: (request: Request) => string | undefined;
  authValue: string;
  /** Prices for a CLI that reports no cost of its own. */
  prices?: Record<string, { input: number; output: number; cachedInput?: number }>;
  /** The cost of one reply of the fake (1000 tokens in, 200 of them cached, 100 out). */
  replyCost: { usd: number; estimated: boolean };
  /** The CLI's own session id: ralph's (`ralph`), or one of its own shape. */
  sessionId: 'ralph' | RegExp;
  /** The name the CLI gives its shell tool in a refusal. */
  shellTool: string;
  /** `ralph add` flags the CLI cannot honour, and what the refusal says. */
  refusedAtAdd: [string[], string][];
  /** Whether ralph holds the CLI to a USD budget as it runs. */
  holdsBudget: boolean;
  /** The flag its resumed command names the session with. */
  resumeFlag: string;
  /** Whether a resumed conversation keeps the tool call it was interrupted in. */
  keepsInterruptedCall: boolean;
  /**
   * Whether a resumed run's system prompt is the prompt ralph gives it then (pi builds its
   * system prompt on every run), rather than the conversation's first.
   */
  renewsSystemPrompt: boolean;
  /** Seconds of silence its start-up may take before it writes anything. */
  idleTimeout: string;
}

const openAi = {
  toolOutput: (request: Request) => lastToolOutput(request as OpenAiRequest),
  conversation: (request: Request) => JSON.stringify(inputItems(request as OpenAiRequest)),
  auth: (request: Request) => request.headers.authorization,
  authValue: `Bearer ${OPENAI_TEST_KEY}`,
};

/** 800 fresh and 200 cached input tokens, 100 output tokens, at the fake model's own cost. */
const OWN_COST = { usd: (800 * 1 + 200 * 0.1 + 100 * 10) / 1e6, estimated: false };

export const HARNESSES: CliHarness[] = [
  {
    name: 'codex',
    setup: (respond, config) => realCodexWorkspace(respond, config),
    closeAfterEach: closeFakeOpenAiAfterEach,
    ...openAi,
    prices: { codex: { input: 1.25, cachedInput: 0.125, output: 10 } },
    replyCost: { usd: (800 * 1.25 + 200 * 0.125 + 100 * 10) / 1e6, estimated: true },
    sessionId: /^[0-9a-f-]{36}$/,
    shellTool: 'shell',
    refusedAtAdd: [
      [['--max-budget-usd', '1'], 'maxBudgetUsd cannot be honoured'],
      [['--allowed-tools', 'Read'], 'codex has no per-tool rules'],
    ],
    holdsBudget: false,
    resumeFlag: 'resume',
    keepsInterruptedCall: true,
    renewsSystemPrompt: false,
    idleTimeout: '3s',
  },
  {
    name: 'gemini',
    setup: (respond, config) => realGeminiWorkspace(respond, config),
    closeAfterEach: closeFakeGeminiAfterEach,
    toolOutput: (request) => lastFunctionResponse(request),
    conversation: (request) => geminiConversation(request),
    auth: (request) => request.headers['x-goog-api-key'] as string | undefined,
    authValue: GEMINI_TEST_KEY,
    prices: { gemini: { input: 0.3, cachedInput: 0.075, output: 2.5 } },
    replyCost: { usd: (800 * 0.3 + 200 * 0.075 + 100 * 2.5) / 1e6, estimated: true },
    sessionId: 'ralph',
    shellTool: 'run_shell_command',
    refusedAtAdd: [
      [['--max-budget-usd', '1'], 'maxBudgetUsd cannot be honoured'],
      [['--allowed-tools', 'Edit(src/**)'], 'gemini cannot limit Edit to "src/**"'],
    ],
    holdsBudget: false,
    resumeFlag: '--resume',
    // gemini keeps no call it was interrupted in: the conversation has the prompts.
    keepsInterruptedCall: false,
    renewsSystemPrompt: false,
    // gemini takes seconds to start, and over 8 s on a loaded machine: the limit leaves it room
    // to run a command first.
    idleTimeout: '15s',
  },
  {
    name: 'opencode',
    setup: (respond, config) => realOpencodeWorkspace(respond, config),
    closeAfterEach: closeFakeOpencodeApiAfterEach,
    ...openAi,
    replyCost: OWN_COST,
    sessionId: /^ses_/,
    shellTool: 'bash',
    refusedAtAdd: [
      [['--tools', 'Read'], 'opencode cannot remove tools'],
      [['--allowed-tools', 'Edit(src/**)'], 'opencode cannot limit Edit to "src/**"'],
    ],
    holdsBudget: true,
    resumeFlag: '--session',
    keepsInterruptedCall: true,
    renewsSystemPrompt: false,
    // opencode takes seconds to start, and over 8 s on a loaded machine: the limit leaves it
    // room to run a command first.
    idleTimeout: '15s',
  },
  {
    name: 'pi',
    setup: (respond, config) => realPiWorkspace(respond, config),
    closeAfterEach: closeFakePiApiAfterEach,
    ...openAi,
    replyCost: OWN_COST,
    sessionId: /^[0-9a-f-]{36}$/,
    shellTool: 'bash',
    refusedAtAdd: [
      [['--allowed-tools', 'Bash(git *)'], 'pi cannot hold Bash to "git *"'],
      // The workspace default, Edit(./**), is a path pi cannot hold edits to either.
      [['--allowed-tools', 'Read,Edit(./**)'], 'pi cannot hold Edit to "./**"'],
    ],
    holdsBudget: true,
    resumeFlag: '--session',
    keepsInterruptedCall: true,
    renewsSystemPrompt: true,
    idleTimeout: '6s',
  },
];

/**
 * Whether a request belongs to the first ralph session the fake has seen (its prompt names the
 * session): for a CLI that retries a failing API itself, however often it does.
 */
export function inFirstSession(harness: CliHarness): (request: Request) => boolean {
  let first: string | undefined;
  return (request) => {
    const session = /Session: ([0-9a-f-]{36})/.exec(harness.conversation(request))?.[1];
    first ??= session;
    return session === first;
  };
}
