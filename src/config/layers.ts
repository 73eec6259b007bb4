import type { SessionSettings } from './schema.js';

/**
 * The nearest setting wins: the item's, else its persona's, else the workspace's. `layers` are
 * the persona's and the item's own settings, nearest last; `read` takes one setting of a layer.
 * Every setting an item may override is resolved here, and nowhere else.
 */
export function nearest<T>(
  layers: readonly SessionSettings[],
  read: (layer: SessionSettings) => T | undefined,
): T | undefined;
export function nearest<T>(
  layers: readonly SessionSettings[],
  read: (layer: SessionSettings) => T | undefined,
  workspace: T,
): T;
export function nearest<T>(
  layers: readonly SessionSettings[],
  read: (layer: SessionSettings) => T | undefined,
  workspace?: T,
): T | undefined {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    const value = layer === undefined ? undefined : read(layer);
    if (value !== undefined) return value;
  }
  return workspace;
}
