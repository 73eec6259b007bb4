import { CLI_NAMES, type CliName } from '../../config/cli-names.js';
import type { DecoderFactory } from '../../stream/decoder.js';
import type { Config, SessionSettings } from '../../config/schema.js';
import {
  explicitSettings,
  fallbackRefusal,
  resolveSandbox,
  resolveSettings,
  type ResolvedSettings,
  type SandboxSettings,
} from '../settings.js';
import type { AgentCli } from './cli.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { pi } from './pi.js';

const CLIS: Record<CliName, AgentCli> = { claude, codex, gemini, opencode, pi };

/** The CLI a session record names (a record of an unknown CLI, or of an older version: claude). */
export function cliOfRecord(cli: string | undefined): AgentCli {
  return (CLI_NAMES as readonly string[]).includes(cli ?? '') ? CLIS[cli as CliName] : CLIS.claude;
}

/** The decoder of a recorded session's stream. */
export function decoderOf(cli: string | undefined): DecoderFactory {
  return cliOfRecord(cli).decoder;
}

/** The agent CLI of that name. */
export function cliNamed(name: CliName): AgentCli {
  return CLIS[name];
}

export type { AgentCli, CliCommand, Enforcer, Invocation } from './cli.js';

/** What to do about a CLI that is not found. */
export function missingHint(name: CliName): string {
  const setting = `clis.${name}.command`;
  return `set "${setting}" in ralph.config.json, or install it: ${CLIS[name].install}`;
}

/** The command a CLI is started with, from the configuration. */
export function commandOf(config: Config, name: CliName): readonly string[] {
  return config.clis[name].command;
}

/**
 * Why the CLI an item runs on cannot honour what the item and its persona ask (undefined: it
 * can), checked at `ralph add`, `ralph run --dry-run` and before each session.
 */
export function cliRefusal(
  settings: ResolvedSettings,
  layers: readonly SessionSettings[],
  sandbox: SandboxSettings,
): string | undefined {
  const cli = cliNamed(settings.cli);
  const reasons = cli.refusals(settings, explicitSettings(layers));
  const inside = sandbox.kind === 'none' ? undefined : cli.sandbox.refusal?.(settings);
  if (inside !== undefined) reasons.push(inside);
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

/** The same, from the configuration and the layers alone (the work dir plays no part). */
export function refusalFor(config: Config, layers: readonly SessionSettings[]): string | undefined {
  const settings = resolveSettings(config.defaults, layers, (p) => p);
  return (
    fallbackRefusal(layers, settings.cli) ??
    cliRefusal(settings, layers, resolveSandbox(config, layers))
  );
}
