/**
 * The roles of the sessions a stage asks for, as their records, index lines and events name
 * them: a session with none is an author's, which writes the item's work.
 */
export const ASKED_ROLES = ['reviewer', 'judge', 'proposer'] as const;
export type AskedRole = (typeof ASKED_ROLES)[number];
