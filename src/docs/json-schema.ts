// What the references read of a JSON Schema (as zod's `toJSONSchema` writes it).

/** The part of a JSON Schema the reference reads. */
export interface JsonSchema {
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  required?: string[];
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A schema's type in a few words. */
export function typeOf(schema: JsonSchema): string {
  const members = schema.anyOf ?? schema.oneOf;
  if (members !== undefined) return [...new Set(members.map(typeOf))].join(' or ');
  if (schema.enum !== undefined) return schema.enum.map((v) => JSON.stringify(v)).join(', ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = schema.type;
  if (Array.isArray(type))
    return type.includes('number') && type.includes('string') ? 'duration' : type.join(' or ');
  if (type === 'array') return `list of ${typeOf(schema.items ?? {})}`;
  if (type === 'object') return typeof schema.additionalProperties === 'object' ? 'map' : 'object';
  if (type === 'integer' || type === 'number') {
    const low = schema.minimum ?? schema.exclusiveMinimum;
    const high =
      schema.maximum !== undefined && schema.maximum < MAX_SAFE ? schema.maximum : undefined;
    const word = type === 'integer' ? 'whole number' : 'number';
    if (low !== undefined && high !== undefined) return `${word}, ${low} to ${high}`;
    if (schema.exclusiveMinimum !== undefined) return `${word} > ${schema.exclusiveMinimum}`;
    return low === undefined ? word : `${word} ≥ ${low}`;
  }
  return type ?? 'any';
}
