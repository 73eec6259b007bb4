import { pickLayer, resolveSandbox, type SandboxSettings } from '../agent/settings.js';
import type { Config, SessionSettings } from '../config/schema.js';
import type { EnvironmentConfig } from '../environment/config-schema.js';
import { environmentOf } from '../environment/settings.js';
import type { ForgeConfig } from '../forge/config-schema.js';
import { forgeOf } from '../forge/settings.js';
import type { Gate } from '../gates/config-schema.js';
import { landingOn, landSettingsOf, type LandSettings } from '../land/settings.js';
import { reviewOn } from '../review/settings.js';
import { candidatesOf, type CandidateSettings } from '../candidates/settings.js';

/** How an item's work is kept and checked: git mode, the quality gates, and the stages after. */
export interface WorkSettings {
  git: boolean;
  /** The ref a new branch starts from; undefined: the repository's HEAD at the claim. */
  base?: string;
  /** The remote a branch is pushed to once its gates pass. */
  push?: string;
  gates: Gate[];
  /** Landing, when it is on (git mode only). */
  land?: LandSettings;
  /** Pull requests, when the workspace sets a forge and the item does not turn it off. */
  forge?: ForgeConfig;
  /** Where the agent and its gates run. */
  sandbox: SandboxSettings;
  /** A reviewer approves its work before it lands or its pull request opens (git mode only). */
  review: boolean;
  /** What makes its worktree ready (git mode only): its setup and maintenance, the item's or persona's over the workspace's. */
  environment: EnvironmentConfig;
  /** Several CLIs try it (git mode only), and a judge picks. */
  candidates?: CandidateSettings;
}

/**
 * Git mode and gates after precedence (the item's, then the persona's, then the workspace's),
 * and each stage's settings as its own room resolves them.
 */
export function resolveWork(config: Config, layers: readonly SessionSettings[]): WorkSettings {
  const git = pickLayer(layers, 'git') ?? config.git.enabled;
  return {
    git,
    base: pickLayer(layers, 'base') ?? config.git.base,
    push: config.git.push,
    gates: pickLayer(layers, 'gates') ?? config.gates,
    land: landingOn(config, layers, git) ? landSettingsOf(config, layers) : undefined,
    forge: forgeOf(config, layers, git),
    sandbox: resolveSandbox(config, layers),
    review: reviewOn(config, layers, git),
    environment: environmentOf(config, layers),
    candidates: candidatesOf(config, layers, git),
  };
}
