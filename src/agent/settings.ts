import type { Config, SessionSettings } from '../config/schema.js';

/** The settings one session runs with, after precedence is applied. */
export interface ResolvedSettings {
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
  const pick = <K extends keyof SessionSettings>(key: K): SessionSettings[K] => {
    for (let i = layers.length - 1; i >= 0; i--) {
      const value = layers[i]?.[key];
      if (value !== undefined) return value;
    }
    return defaults[key];
  };
  return {
    workDir: resolvePath(pick('workDir') ?? '.'),
    model: pick('model'),
    maxTurns: pick('maxTurns') ?? defaults.maxTurns,
    maxBudgetUsd: pick('maxBudgetUsd') ?? defaults.maxBudgetUsd,
    timeoutSeconds: pick('timeout') ?? defaults.timeout,
    idleTimeoutSeconds: pick('idleTimeout') ?? defaults.idleTimeout,
    tools: pick('tools'),
    allowedTools: pick('allowedTools') ?? defaults.allowedTools,
    disallowedTools: pick('disallowedTools') ?? defaults.disallowedTools,
    permissionMode: pick('permissionMode') ?? defaults.permissionMode,
  };
}
