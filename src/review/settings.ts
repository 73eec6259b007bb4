import { nearest } from '../config/layers.js';
import type { Config, SessionSettings } from '../config/schema.js';

/** Whether a reviewer approves an item's work before it goes on (git mode only). */
export function reviewOn(
  config: Config,
  layers: readonly SessionSettings[],
  git: boolean,
): boolean {
  return git && (nearest(layers, (layer) => layer.review) ?? config.review.enabled);
}
