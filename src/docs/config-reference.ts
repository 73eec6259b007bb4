import * as z from '../lib/zod.js';
import { ConfigSchema } from '../config/schema.js';
import { code, generatedNote, table } from './markdown.js';
import { typeOf, type JsonSchema } from './json-schema.js';

/** `ralph.config.json`'s JSON Schema (what the file may hold, before defaults), for editors. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'ralph.config.json',
  };
}

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

/** The value at `path` of the configuration ralph reads from an empty file. */
function defaultAt(defaults: unknown, path: readonly string[]): string {
  let value = defaults;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return '';
    value = (value as Record<string, unknown>)[key];
  }
  return value === undefined ? '' : code(JSON.stringify(value));
}

/** The schema's object members: an object's own keys, or every object a union may be. */
function objectsOf(schema: JsonSchema): JsonSchema[] {
  if (schema.properties !== undefined) return [schema];
  return (schema.anyOf ?? schema.oneOf ?? []).flatMap(objectsOf);
}

/** Every key under `schema` as rows, a section's keys after it; `path` is where it is. */
function rowsOf(schema: JsonSchema, path: string[], defaults: unknown, inList: boolean): Row[] {
  const rows: Row[] = [];
  const seen = new Set<string>();
  for (const object of objectsOf(schema))
    for (const [name, field] of Object.entries(object.properties ?? {})) {
      const at = [...path, name];
      const key = at.join('.').replace(/\.\[\]/g, '[]');
      if (seen.has(key)) continue;
      seen.add(key);
      if (field.description === undefined)
        throw new Error(`ralph.config.json: "${key}" has no description in its schema`);
      rows.push({
        key,
        type: typeOf(field),
        default: inList || objectsOf(field).length > 0 ? '' : defaultAt(defaults, at),
        description: field.description,
      });
      const listed = field.type === 'array' ? field.items : undefined;
      const named =
        typeof field.additionalProperties === 'object' ? field.additionalProperties : undefined;
      if (objectsOf(field).length > 0) rows.push(...rowsOf(field, at, defaults, inList));
      else if (listed !== undefined && objectsOf(listed).length > 0)
        rows.push(...rowsOf(listed, [...at, '[]'], defaults, true));
      else if (named !== undefined && objectsOf(named).length > 0)
        rows.push(...rowsOf(named, [...at, '<name>'], defaults, true));
    }
  return rows;
}

/** The configuration reference of docs/reference/configuration.md, from the zod schemas. */
export function configReference(): string {
  const schema = configJsonSchema() as JsonSchema;
  const defaults = ConfigSchema.parse({});
  const rows = rowsOf(schema, [], defaults, false);
  // One section a top-level key (`run`, `land`, …); the keys of no group of their own first.
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const top = /^[^.[<]+/.exec(row.key)?.[0] ?? row.key;
    const grouped = rows.some((r) => r.key.startsWith(`${top}.`) || r.key.startsWith(`${top}[`));
    const group = grouped ? top : '';
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  const heading = (group: string) => (group === '' ? 'Top-level keys' : `\`${group}\``);
  const anchor = (group: string) => (group === '' ? 'top-level-keys' : group.toLowerCase());
  return [
    generatedNote(
      "the schemas of `ralph.config.json` (`src/config/schema.ts` and each room's `config-schema.ts`)",
    ),
    '# Configuration reference',
    `Every key of \`ralph.config.json\`. Every key is optional, and an unknown key or a wrong type stops every command with a message naming the file and the key. The default is what ralph reads from an empty file. A duration is written \`"90s"\`, \`"15m"\`, \`"2h"\` or as seconds, and its default is given in seconds; \`[]\` marks the keys of each entry of a list, \`<name>\` those of each entry of a map. \`ralph init\` writes \`"$schema"\`, so an editor completes and checks the file against [\`schema/ralph.config.schema.json\`](../../schema/ralph.config.schema.json). How the settings of an item, a persona and the workspace combine is in [Configuration](../configuration.md).`,
    [...groups.keys()].map((group) => `- [${heading(group)}](#${anchor(group)})`).join('\n'),
    ...[...groups].flatMap(([group, members]) => [
      `## ${heading(group)}`,
      ...(group === '' ? [] : [members[0]?.description ?? '']),
      table(
        ['key', 'type', 'default', 'meaning'],
        (group === '' ? members : members.slice(1)).map((r) => [
          code(r.key),
          r.type,
          r.default,
          r.description,
        ]),
      ),
    ]),
  ].join('\n\n');
}
