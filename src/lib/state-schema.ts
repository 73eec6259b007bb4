import { CorruptStateError, InputError } from './errors.js';

/**
 * The schema version of a state file ralph writes: `schema` in the file (absent in files of
 * releases before it was introduced, which are schema 1). A file of an older schema is migrated
 * when read and written in the current one only when ralph writes it anyway; a newer one is
 * refused, never rewritten: the ralph that wrote it knows fields this one would drop.
 */
export function schemaOf(file: string, raw: unknown, current: number): number {
  const schema = (raw as { schema?: unknown } | null)?.schema ?? 1;
  if (typeof schema !== 'number' || !Number.isInteger(schema) || schema < 1)
    throw new InputError(
      `${file}: schema: expected a whole number from 1, got ${JSON.stringify(schema)}`,
    );
  if (schema > current)
    throw new CorruptStateError(
      `${file} was written by a newer ralph (its schema ${schema}; this one reads up to ${current}): upgrade ralph to use this workspace. The file was left as it is.`,
      file,
    );
  return schema;
}

/**
 * An item or a session record as release 0.1.0 wrote it, its conversation to resume under the
 * name it had then (`claudeSessionId`, whichever CLI held it): the value as `conversationId`.
 */
export function withConversationId(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { claudeSessionId: old, ...rest } = value as Record<string, unknown>;
  if (old === undefined || 'conversationId' in rest) return value;
  return { ...rest, conversationId: old };
}
