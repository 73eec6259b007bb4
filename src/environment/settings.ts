import { nearest } from '../config/layers.js';
import type { Config, SessionSettings } from '../config/schema.js';
import type { EnvironmentConfig } from './config-schema.js';

/** What makes an item's worktree ready: its setup and maintenance, the item's or persona's over the workspace's. */
export function environmentOf(
  config: Config,
  layers: readonly SessionSettings[],
): EnvironmentConfig {
  return {
    ...config.environment,
    setup: nearest(layers, (layer) => layer.setup) ?? config.environment.setup,
    maintenance: nearest(layers, (layer) => layer.maintenance) ?? config.environment.maintenance,
  };
}
