// The JSON Schema shipped for editors (schema/ralph.config.schema.json), as a validator.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';

const FILE = fileURLToPath(new URL('../../schema/ralph.config.schema.json', import.meta.url));

let validate: ReturnType<Ajv2020['compile']> | undefined;

/** What the JSON Schema finds wrong with a configuration (none: it accepts it). */
export function jsonSchemaProblems(config: unknown): string[] {
  validate ??= new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(
    JSON.parse(fs.readFileSync(FILE, 'utf8')) as object,
  );
  if (validate(config)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}
