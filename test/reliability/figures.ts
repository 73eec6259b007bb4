// Global setup of the test runs: gives every test file one figures file and prints the figures
// the reliability scenarios wrote there as a table when the run ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { Figures } from './harness.js';

declare module 'vitest' {
  export interface ProvidedContext {
    figuresFile?: string;
  }
}

const COLUMNS = [
  'items',
  'kills',
  'lost',
  'stuck',
  'duplicates',
  'orphans',
  'leakedSecrets',
  'badInputs',
] as const;

export default function setup(project: TestProject): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ralph-figures-'));
  const file = path.join(dir, 'figures.jsonl');
  fs.writeFileSync(file, '');
  project.provide('figuresFile', file);
  return () => {
    const rows = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figures);
    fs.rmSync(dir, { recursive: true, force: true });
    if (rows.length === 0) return;
    const total: Figures = { scenario: 'total' };
    for (const row of rows)
      for (const key of COLUMNS)
        if (row[key] !== undefined) total[key] = (total[key] ?? 0) + row[key];
    const table = [...rows.sort((a, b) => a.scenario.localeCompare(b.scenario)), total].map(
      (row) => [
        row.scenario,
        ...COLUMNS.map((key) => (row[key] === undefined ? '-' : String(row[key]))),
      ],
    );
    const header = ['scenario', ...COLUMNS];
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]?.length ?? 0)));
    const line = (cells: string[]) =>
      cells
        .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
        .join('  ');
    console.log(['', 'reliability figures', line(header), ...table.map(line)].join('\n'));
  };
}
