// End-to-end: ralph drives the real pi CLI (pinned devDependency) against a fake
// OpenAI-compatible chat API on 127.0.0.1 (a provider of its own in ~/.pi/agent/models.json).
import { HARNESSES } from '../support/agent-clis.js';
import { scenarios } from '../support/cli-scenarios.js';

scenarios(HARNESSES.find((h) => h.name === 'pi')!);
