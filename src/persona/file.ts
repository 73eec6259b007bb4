import path from 'node:path';

/** The file of a persona id (apart from the parser: commands find it without loading YAML). */
export function personaFile(agentsDir: string, id: string): string {
  return path.join(agentsDir, `AGENT_${id}.md`);
}
