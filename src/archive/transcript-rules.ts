// How a transcript shortens what the agent did: shared by `ralph logs` and the dashboard, so
// this module depends on nothing of Node's.

/** Characters of a tool result a transcript shows before cutting it. */
export const RESULT_CHARS = 300;
/** Text on one line, cut at `max` characters with its length said. */
export const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length} chars)` : flat;
};

/** A one-line summary of a tool call's input: the command, the path, the pattern… */
export function summariseToolInput(name: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const fields = input as Record<string, unknown>;
  for (const key of [
    'command',
    'file_path',
    'path',
    'pattern',
    'url',
    'query',
    'description',
    'prompt',
  ]) {
    const value = fields[key];
    if (typeof value === 'string' && value !== '') return oneLine(value, 160);
  }
  return oneLine(JSON.stringify(input), 160) || name;
}
