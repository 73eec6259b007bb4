/** The appended system prompt's cap: 16,000 tokens at about 4 characters a token. */
export const PROMPT_CAP_CHARS = 16_000 * 4;
/** The task text's share of the prompt: the rest is for the identity, template and context. */
export const MAX_BODY_CHARS = PROMPT_CAP_CHARS / 2;
/** Each project context file is read up to this size. */
export const CONTEXT_FILE_CAP = 4 * 1024;

/** The parts of the appended system prompt, in the order they are assembled. */
export interface PromptParts {
  identity: string;
  context: { name: string; text: string }[];
  persona?: { id: string; instructions: string };
  bootstrap: string;
}

/** What had to be cut to stay under the cap. */
export interface PromptCut {
  part: 'persona' | 'context';
  removedChars: number;
}

/** The assembled prompt, with the size of each section and any cuts. */
export interface AssembledPrompt {
  text: string;
  sizes: { identity: number; context: number; persona: number; bootstrap: number; total: number };
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
 * Assembles the appended system prompt: base identity, project context, persona instructions,
 * the rendered bootstrap. Over the cap, the persona instructions are cut first, then the project
 * context; the identity and the bootstrap are never cut.
 */
export function assemblePrompt(parts: PromptParts, cap = PROMPT_CAP_CHARS): AssembledPrompt {
  const identity = `# Identity\n\n${parts.identity.trim()}`;
  const bootstrap = `# Assignment\n\n${parts.bootstrap.trim()}`;
  const personaHead = parts.persona ? `# Persona: ${parts.persona.id}\n\n` : '';
  let persona = parts.persona?.instructions.trim() ?? '';
  let context = contextSection(parts.context);
  const joiners = 2 * 3;
  const cuts: PromptCut[] = [];
  const fixed = identity.length + bootstrap.length + personaHead.length + joiners;
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
  const text = [identity, context, personaSection, bootstrap].filter((s) => s !== '').join('\n\n');
  return {
    text: `${text}\n`,
    sizes: {
      identity: identity.length,
      context: context.length,
      persona: personaSection.length,
      bootstrap: bootstrap.length,
      total: text.length + 1,
    },
    cuts,
  };
}
