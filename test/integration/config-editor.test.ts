// `ralph.config.json` completes and is checked in an editor: the file `ralph init` writes names
// the JSON Schema shipped with ralph, and VS Code's JSON language service (the one its editor
// runs) follows that `$schema` to complete keys and mark unknown ones.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getLanguageService, TextDocument, type JSONDocument } from 'vscode-json-languageservice';
import { makeWorkspace } from '../support/workspace.js';

const service = getLanguageService({
  schemaRequestService: (uri) => fs.readFile(fileURLToPath(uri), 'utf8'),
});

function open(text: string): { document: TextDocument; json: JSONDocument } {
  const document = TextDocument.create('file:///night/ralph.config.json', 'json', 1, text);
  return { document, json: service.parseJSONDocument(document) };
}

describe('ralph.config.json in an editor', () => {
  it('names the shipped schema, whose keys complete inside a section', async () => {
    const root = await makeWorkspace();
    const text = await fs.readFile(path.join(root, 'ralph.config.json'), 'utf8');
    const config = JSON.parse(text) as { $schema: string };
    expect(fileURLToPath(config.$schema)).toBe(
      fileURLToPath(new URL('../../schema/ralph.config.schema.json', import.meta.url)),
    );
    // Inside "run": { … }, the keys init did not spell out are offered, with their meaning.
    const { document, json } = open(text);
    const inRun = document.positionAt(text.indexOf('"run": {') + '"run": {'.length);
    const completion = await service.doComplete(document, inRun, json);
    const maxCost = completion?.items.find((item) => item.label === 'maxCostUsd');
    expect(maxCost?.documentation ?? maxCost?.detail).toBeDefined();
    expect(JSON.stringify(maxCost)).toContain('spend');
  });

  it('marks an unknown key and a wrong type, as ralph refuses them', async () => {
    const root = await makeWorkspace();
    const config = JSON.parse(await fs.readFile(path.join(root, 'ralph.config.json'), 'utf8')) as {
      run: Record<string, unknown>;
    };
    const text = JSON.stringify(
      { ...config, colour: 1, run: { ...config.run, workers: 'three' } },
      null,
      2,
    );
    const { document, json } = open(text);
    const problems = await service.doValidation(document, json);
    const messages = problems.map(
      (p) =>
        `${document.getText(p.range)}: ${typeof p.message === 'string' ? p.message : p.message.value}`,
    );
    expect(messages.some((m) => m.startsWith('"colour"') && /not allowed/.test(m))).toBe(true);
    expect(messages.some((m) => m.startsWith('"three"') && /integer/i.test(m))).toBe(true);
  });
});
