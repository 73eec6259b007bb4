/** The appended system prompt's cap: 16,000 tokens at about 4 characters a token. */
export const PROMPT_CAP_CHARS = 16_000 * 4;
/** The task text's share of the prompt: the rest is for the identity, template and context. */
export const MAX_BODY_CHARS = PROMPT_CAP_CHARS / 2;
/** Each project context file is read up to this size. */
export const CONTEXT_FILE_CAP = 4 * 1024;

/** The parts of the prompt, in the order they are assembled. */
export interface PromptParts {
  /** Who the agent is and for whom: the same for every item of a night that shares settings. */
  identity: string;
  /** Which item, session, directory and branch: the item's own, at the head of its assignment. */
  item?: string;
  context: { name: string; text: string }[];
  persona?: { id: string; instructions: string };
  /** The standing instructions (the workspace's instructions template, rendered). */
  instructions?: string;
  /** The rules a person accepted, the same for every item: after the standing instructions. */
  rules?: string;
  bootstrap: string;
}

/** What had to be cut to stay under the cap. */
export interface PromptCut {
  part: 'persona' | 'context';
  removedChars: number;
}

/**
 * The assembled prompt, with the size of each section and any cuts: whole (`text`), and in its
 * two parts. `system` holds nothing of the item's (the same bytes for every item that shares
 * its settings, so a model API's prompt cache serves it from the item before); `assignment`,
 * the item's own, travels in the first message of a CLI that takes a system prompt.
 */
export interface AssembledPrompt {
  text: string;
  system: string;
  assignment: string;
  sizes: {
    identity: number;
    context: number;
    persona: number;
    instructions: number;
    rules: number;
    bootstrap: number;
    total: number;
  };
  cuts: PromptCut[];
}

/** Cuts a text to `max` characters, marking the cut inside the text. */
function cut(text: string, max: number, what: string): string {
  if (text.length <= max) return text;
  const marker = `\n[… ${what} cut by ralph: ${text.length - max} characters over the prompt cap]`;
  return max <= marker.length
    ? marker.trimStart()
    : `${text.slice(0, max - marker.length)}${marker}`;
}

/** A project file shortened to the context cap, marked when cut. */
export function capContextFile(text: string): string {
  return cut(text, CONTEXT_FILE_CAP, 'file');
}

const contextSection = (context: PromptParts['context']) =>
  context.length === 0
    ? ''
    : `# Project context\n\n${context.map((f) => `## ${f.name}\n\n${f.text.trim()}`).join('\n\n')}`;

/**
 * Assembles the prompt: its system part (base identity, project context, persona instructions,
 * standing instructions, rules), then the item's assignment (the rendered bootstrap). Over the cap, the
 * persona instructions are cut first, then the project context; the identity, the standing
 * instructions, the rules and the assignment are never cut.
 */
export function assemblePrompt(parts: PromptParts, cap = PROMPT_CAP_CHARS): AssembledPrompt {
  const identity = `# Identity\n\n${parts.identity.trim()}`;
  const item = parts.item === undefined ? '' : `${parts.item.trim()}\n\n`;
  const bootstrap = `# Assignment\n\n${item}${parts.bootstrap.trim()}`;
  const instructions =
    parts.instructions === undefined || parts.instructions.trim() === ''
      ? ''
      : `# Instructions\n\n${parts.instructions.trim()}`;
  const rules =
    parts.rules === undefined || parts.rules.trim() === ''
      ? ''
      : `# Rules\n\n${parts.rules.trim()}`;
  const personaHead = parts.persona ? `# Persona: ${parts.persona.id}\n\n` : '';
  let persona = parts.persona?.instructions.trim() ?? '';
  let context = contextSection(parts.context);
  const joiners = 2 * 4;
  const cuts: PromptCut[] = [];
  const fixed =
    identity.length +
    instructions.length +
    rules.length +
    bootstrap.length +
    personaHead.length +
    joiners +
    2;
  let over = fixed + context.length + persona.length - cap;
  if (over > 0 && persona.length > 0) {
    const keep = Math.max(0, persona.length - over);
    const next = cut(persona, keep, 'persona instructions');
    cuts.push({ part: 'persona', removedChars: persona.length - keep });
    persona = next;
    over = fixed + context.length + persona.length - cap;
  }
  if (over > 0 && context.length > 0) {
    const keep = Math.max(0, context.length - over);
    cuts.push({ part: 'context', removedChars: context.length - keep });
    context = cut(context, keep, 'project context');
  }
  const personaSection = parts.persona ? `${personaHead}${persona}` : '';
  const system = [identity, context, personaSection, instructions, rules]
    .filter((s) => s !== '')
    .join('\n\n');
  const text = `${system}\n\n${bootstrap}`;
  return {
    text: `${text}\n`,
    system: `${system}\n`,
    assignment: `${bootstrap}\n`,
    sizes: {
      identity: identity.length,
      context: context.length,
      persona: personaSection.length,
      instructions: instructions.length,
      rules: rules.length,
      bootstrap: bootstrap.length,
      total: text.length + 1,
    },
    cuts,
  };
}
