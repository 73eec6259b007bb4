import type { CliName } from '../config/cli-names.js';
import type { Config, SessionSettings } from '../config/schema.js';
import type { SandboxChoice } from '../sandbox/config-schema.js';
import { nearest } from '../config/layers.js';
import { cliOfFallback } from './config-schema.js';

/** The settings one session runs with, after precedence is applied. */
export interface ResolvedSettings {
  cli: CliName;
  workDir: string;
  model?: string;
  maxTurns: number;
  maxBudgetUsd: number;
  timeoutSeconds: number;
  idleTimeoutSeconds: number;
  tools?: string[];
  allowedTools: string[];
  disallowedTools: string[];
  permissionMode: NonNullable<SessionSettings['permissionMode']>;
  /** Send the CLI's first request without what the session cannot use (see `lean`). */
  lean: boolean;
}

/**
 * Applies precedence: the item's own settings beat the persona's, which beat the workspace
 * defaults. `workDir` is resolved against the workspace root.
 */
export function resolveSettings(
  defaults: Config['defaults'],
  layers: readonly SessionSettings[],
  resolvePath: (p: string) => string,
): ResolvedSettings {
  const pick = <K extends keyof Config['defaults'] & keyof SessionSettings>(
    key: K,
  ): SessionSettings[K] => nearest(layers, (layer) => layer[key]) ?? defaults[key];
  return {
    cli: pick('cli') ?? defaults.cli,
    // Unnamed, it is the workspace, which no session is given (`workDirProblem`).
    workDir: resolvePath(namedWorkDir(defaults, layers) ?? '.'),
    model: pick('model'),
    maxTurns: pick('maxTurns') ?? defaults.maxTurns,
    maxBudgetUsd: pick('maxBudgetUsd') ?? defaults.maxBudgetUsd,
    timeoutSeconds: pick('timeout') ?? defaults.timeout,
    idleTimeoutSeconds: pick('idleTimeout') ?? defaults.idleTimeout,
    tools: pick('tools'),
    allowedTools: pick('allowedTools') ?? defaults.allowedTools,
    disallowedTools: pick('disallowedTools') ?? defaults.disallowedTools,
    permissionMode: pick('permissionMode') ?? defaults.permissionMode,
    lean: pick('lean') ?? false,
  };
}

/** The work dir the layers or the workspace's defaults name, as written; undefined: none. */
export function namedWorkDir(
  defaults: Config['defaults'],
  layers: readonly SessionSettings[],
): string | undefined {
  return nearest(layers, (layer) => layer.workDir) ?? defaults.workDir;
}

/** A CLI a session may fall back on, and the model to ask it for (its default: none named). */
export interface FallbackCli {
  cli: CliName;
  model?: string;
}

/** The fallback after precedence. */
export interface FallbackSettings {
  /** In order of preference; empty: the session waits for its own CLI. */
  clis: FallbackCli[];
  /** A limit that resets within this many seconds is waited for instead. */
  afterSeconds: number;
  handoverChars: number;
}

/** A five-hour window's reset is worth waiting for; a weekly one is not. */
export const FALLBACK_AFTER_SECONDS = 15 * 60;
export const HANDOVER_CHARS = 12_000;

/**
 * The fallback of a session on `ownCli`: each key the item's, else the persona's, else the
 * workspace's. The workspace's list leaves out the CLI the item runs on (it is there for items
 * on the default CLI); a list the item or persona gives with its own CLI is refused earlier.
 */
export function resolveFallback(
  defaults: Config['defaults'],
  layers: readonly SessionSettings[],
  ownCli: CliName,
): FallbackSettings {
  const pick = <K extends 'clis' | 'after' | 'handoverChars'>(key: K) =>
    nearest(layers, (layer) => layer.fallback?.[key]) ?? defaults.fallback?.[key];
  const clis = (pick('clis') ?? [])
    .map((choice) => (typeof choice === 'string' ? { cli: choice } : choice))
    .filter((choice) => choice.cli !== ownCli);
  return {
    clis,
    afterSeconds: pick('after') ?? FALLBACK_AFTER_SECONDS,
    handoverChars: pick('handoverChars') ?? HANDOVER_CHARS,
  };
}

/** Why the fallback list an item or its persona gives cannot be (it names the session's own CLI). */
export function fallbackRefusal(
  layers: readonly SessionSettings[],
  ownCli: CliName,
): string | undefined {
  const clis = layers.findLast((layer) => layer.fallback?.clis !== undefined)?.fallback?.clis;
  const own = clis?.find((choice) => cliOfFallback(choice) === ownCli);
  return own === undefined
    ? undefined
    : `fallback.clis names "${ownCli}", the CLI the item runs on: a fallback is another CLI`;
}

/** One setting of the item's layers (the item's beats its persona's), without the workspace's. */
export function pickLayer<K extends keyof SessionSettings>(
  layers: readonly SessionSettings[],
  key: K,
): SessionSettings[K] {
  return nearest(layers, (layer) => layer[key]);
}

/** What the item and its persona set themselves, before the workspace defaults. */
export function explicitSettings(layers: readonly SessionSettings[]): SessionSettings {
  const explicit: Record<string, unknown> = {};
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer))
      if (value !== undefined) explicit[key] = value;
  return explicit;
}

/**
 * The sandbox after precedence: each key the item's, else the persona's, else the workspace's.
 * Resolved here, beside the session's other settings, because a CLI's command depends on it.
 */
export type SandboxSettings = Required<SandboxChoice>;

/** The sandbox an item's session and gates run in. */
export function resolveSandbox(
  config: Config,
  layers: readonly SessionSettings[],
): SandboxSettings {
  const pick = <K extends keyof SandboxChoice>(key: K): SandboxSettings[K] =>
    nearest(
      layers,
      (layer) => layer.sandbox?.[key] as SandboxSettings[K] | undefined,
      config.sandbox[key],
    );
  return {
    kind: pick('kind'),
    network: pick('network'),
    allowHosts: pick('allowHosts'),
    readOnly: pick('readOnly'),
    readWrite: pick('readWrite'),
  };
}
