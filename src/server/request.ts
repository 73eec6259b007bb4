import type { Context } from 'hono';
import { InputError } from '../lib/errors.js';
import { formatIssues } from '../lib/validation.js';
import type * as z from '../lib/zod.js';

/** Validates a request's query with `schema`; a bad value is a 400 naming the parameter. */
export function query<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check('the query', schema, c.req.query());
}

/** Reads and validates a JSON body; no body reads as `{}`. */
export async function body<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      throw new InputError('the request body is not JSON');
    }
  }
  return check('the request body', schema, value);
}

function check<S extends z.ZodType>(what: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0]?.path[0];
  throw new InputError(
    formatIssues(what, parsed.error),
    first === undefined ? undefined : String(first),
  );
}
