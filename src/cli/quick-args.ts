/** The parser's name of each quick command (`ls` is an alias of `queue`). */
const QUICK: Record<string, 'status' | 'queue'> = { status: 'status', ls: 'queue', queue: 'queue' };

/** A quick command as its arguments give it. */
export interface QuickArgs {
  command: 'status' | 'queue';
  /** The workspace `-C` names, if it names one. */
  root: string | undefined;
  json: boolean;
}

/**
 * `[-C <dir>] status|ls|queue [--json]`, the shape of a quick command; any other shape (another
 * flag, `--help`, a typo) is undefined: the parser takes it. Imports nothing, so that every
 * other command pays nothing for asking.
 */
export function quickArgs(args: readonly string[]): QuickArgs | undefined {
  const hasRoot = args[0] === '-C' || args[0] === '--root';
  const given = hasRoot ? args[1] : undefined;
  if (hasRoot && (given === undefined || given === '' || given.startsWith('-'))) return undefined;
  const [word = '', ...flags] = args.slice(hasRoot ? 2 : 0);
  const command = Object.hasOwn(QUICK, word) ? QUICK[word] : undefined;
  if (command === undefined || flags.some((flag) => flag !== '--json') || flags.length > 1)
    return undefined;
  return { command, root: given, json: flags.length === 1 };
}
