import { nearest } from '../config/layers.js';
import type { Config, SessionSettings } from '../config/schema.js';
import type { ForgeConfig } from './config-schema.js';

/** An item's pull requests: the workspace's forge, when it is of git mode and does not turn them off. */
export function forgeOf(
  config: Config,
  layers: readonly SessionSettings[],
  git: boolean,
): ForgeConfig | undefined {
  return git && nearest(layers, (layer) => layer.forge) !== false ? config.forge : undefined;
}
