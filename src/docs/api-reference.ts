import { openApiDocument } from '../server/openapi.js';
import { anchor, code, generatedNote, table } from './markdown.js';
import { typeOf, type JsonSchema } from './json-schema.js';

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: JsonSchema;
}

interface Operation {
  summary: string;
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

/** An object's keys as rows: name, type, whether it is required, what it is. */
function fields(schema: JsonSchema): string[][] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) => [
    code(name),
    typeOf(field),
    required.has(name) ? 'yes' : '',
    field.description ?? '',
  ]);
}

function operationSection(method: string, path: string, op: Operation): string {
  const parts = [`## ${method.toUpperCase()} ${path}`, `${op.summary}.`];
  if (op.parameters.length > 0)
    parts.push(
      table(
        ['parameter', 'in', 'type', 'required'],
        op.parameters.map((p) => [code(p.name), p.in, typeOf(p.schema), p.required ? 'yes' : '']),
      ),
    );
  const body = op.requestBody?.content['application/json']?.schema;
  if (body !== undefined)
    parts.push('Body (JSON):', table(['field', 'type', 'required', 'meaning'], fields(body)));
  const [status, success] = Object.entries(op.responses)[0] ?? [];
  if (status !== undefined && success !== undefined) {
    const kinds = Object.keys(success.content ?? {});
    const answer = success.content?.['application/json']?.schema;
    parts.push(
      `Answers ${status}${kinds.length > 0 ? ` with ${kinds.map(code).join(' or ')}` : ''}.`,
    );
    if (answer?.properties !== undefined)
      parts.push(table(['field', 'type', 'required', 'meaning'], fields(answer)));
  }
  return parts.join('\n\n');
}

/** The HTTP API reference of docs/reference/http-api.md, from the OpenAPI document the server serves. */
export function apiReference(): string {
  const document = openApiDocument() as { paths: Record<string, Record<string, Operation>> };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method, path, op })),
  );
  return [
    generatedNote('the OpenAPI document `ralph serve` serves (`src/server/openapi.ts`)'),
    '# HTTP API reference',
    'What `ralph serve` answers, as its OpenAPI 3.1 document (`GET /openapi.json`) describes it: every request is validated with the same schemas. Every route asks for the bearer token (`Authorization: Bearer <token>`; the token is in `state/serve-token`), and a refusal answers `{ "error": … }` with 400, 401, 403, 404, 405, 409, 413 or 503. How to reach the server safely from another machine is in [the dashboard page](../dashboard.md).',
    operations
      .map(
        (o) =>
          `- [${code(`${o.method.toUpperCase()} ${o.path}`)}](${anchor(`${o.method.toUpperCase()} ${o.path}`)}): ${o.op.summary}`,
      )
      .join('\n'),
    ...operations.map((o) => operationSection(o.method, o.path, o.op)),
  ].join('\n\n');
}
