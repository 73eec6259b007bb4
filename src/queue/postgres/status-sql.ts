import { ITEM_STATUSES, type ItemStatus } from '../item-status.js';

/** The statuses that say `which` of an item, as an SQL list: asked of the traits, not named. */
export const statusesSql = (which: (status: ItemStatus) => boolean): string =>
  ITEM_STATUSES.filter(which)
    .map((status) => `'${status}'`)
    .join(', ');
