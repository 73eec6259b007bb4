import { pickLayer } from '../agent/settings.js';
import { nearest } from '../config/layers.js';
import type { Config, SessionSettings } from '../config/schema.js';
import type { Gate } from '../gates/config-schema.js';
import type { LandChoice } from './config-schema.js';

/** How an item's branch lands on the target once its gates pass. */
export interface LandSettings {
  target: string;
  method: NonNullable<LandChoice['method']>;
  /** Run on the merged tree before the target moves. */
  gates: Gate[];
  maxRounds: number;
  /** The remote the target is pushed to after each landing. */
  push?: string;
  /** New branches start from the target (where their dependencies landed), unless a base is named. */
  fromTarget: boolean;
}

/** One key of `land` of the item's layers, without the workspace's. */
function pickLand<K extends keyof LandChoice>(
  layers: readonly SessionSettings[],
  key: K,
): LandChoice[K] {
  return nearest(layers, (layer) => layer.land?.[key]);
}

/** Whether an item of git mode (`git`) lands: the item's, then the persona's, then the workspace's. */
export function landingOn(
  config: Config,
  layers: readonly SessionSettings[],
  git: boolean,
): boolean {
  return git && (pickLand(layers, 'enabled') ?? config.land.enabled);
}

/** How an item lands, whether or not landing is on for it (an item already waiting to land). */
export function landSettingsOf(config: Config, layers: readonly SessionSettings[]): LandSettings {
  const gates = pickLayer(layers, 'gates') ?? config.gates;
  return {
    target: pickLand(layers, 'target') ?? config.land.target,
    method: pickLand(layers, 'method') ?? config.land.method,
    gates: pickLand(layers, 'gates') ?? config.land.gates ?? gates,
    maxRounds: pickLand(layers, 'maxRounds') ?? config.land.maxRounds,
    push: pickLand(layers, 'push') ?? config.land.push,
    fromTarget: pickLayer(layers, 'base') === undefined,
  };
}
