import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import type { ServerContext } from '../../src/server/context.js';
import { ROUTES, openApiDocument } from '../../src/server/openapi.js';

describe('GET /openapi.json', () => {
  it('describes every route the server has, and no other', () => {
    const ctx = { workspace: { paths: {} } } as unknown as ServerContext;
    const app = createApp(
      ctx,
      { token: 'x'.repeat(32), hosts: new Set(), publicOrigins: new Set() },
      () => undefined,
    );
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && r.path !== '/' && !r.path.startsWith('/assets'))
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const described = Object.entries(ROUTES)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
      .sort();
    expect(described).toEqual(served);
  });

  it('takes the request schemas from the validation itself', () => {
    const doc = openApiDocument() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                { schema: { properties: Record<string, unknown>; required?: string[] } }
              >;
            };
          }
        >
      >;
    };
    const add = doc.paths['/items']?.post?.requestBody?.content['application/json']?.schema;
    expect(add?.required).toEqual(['title']);
    expect(add?.properties.permissionMode).toMatchObject({
      enum: expect.arrayContaining(['dontAsk']) as unknown,
    });
    expect(add?.properties.dependsOn).toMatchObject({ type: 'array' });
  });
});

describe('GET /openapi.json: answers', () => {
  it('gives each route the schema of its answer, and of a refusal', () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
    };
    const health = doc.paths['/health']?.get?.responses['200']?.content as Record<
      string,
      { schema: { properties: Record<string, unknown>; additionalProperties?: boolean } }
    >;
    expect(Object.keys(health['application/json']?.schema.properties ?? {})).toEqual(
      expect.arrayContaining(['version', 'queue', 'running', 'budget']),
    );
    expect(health['application/json']?.schema.additionalProperties).toBe(false);
    expect(Object.keys(doc.paths['/items']?.post?.responses ?? {})).toEqual(['201', 'default']);
    expect(Object.keys(doc.paths['/events']?.get?.responses['200']?.content ?? {})).toEqual([
      'text/event-stream',
    ]);
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods)) {
        const ok = Object.entries(op.responses).find(([status]) => status !== 'default');
        expect(Object.keys(ok?.[1].content ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
        expect(op.responses.default?.content, `${method} ${path}`).toHaveProperty(
          'application/json',
        );
      }
  });
});
