import { InputError } from '../lib/errors.js';

/**
 * A number typed on the command line, checked in the words of its flag. `integer` asks for a
 * whole number; `positive` for one above 0. Undefined when the flag was not given.
 */
export function numberFlag(
  flag: string,
  value: unknown,
  want: { integer?: boolean; positive?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const what = `${want.positive ? 'a positive ' : 'a '}${want.integer ? 'whole number' : 'number'}`;
  if (
    (typeof value === 'string' && value.trim() === '') ||
    !Number.isFinite(n) ||
    (want.integer === true && !Number.isInteger(n)) ||
    (want.positive === true && n <= 0)
  )
    throw new InputError(`${flag}: expected ${what}, got ${JSON.stringify(value)}`);
  return n;
}

export const positiveInt = (flag: string, value: unknown) =>
  numberFlag(flag, value, { integer: true, positive: true });

export const positiveAmount = (flag: string, value: unknown) =>
  numberFlag(flag, value, { positive: true });
