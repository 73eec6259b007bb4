import * as z from '../lib/zod.js';

/** Linear, as a source of work both ways (`ralph import linear:<TEAM>`): where, and with what key. */
export const LinearSchema = z.strictObject({
  apiUrl: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL such as "https://api.linear.app/graphql"' })
    .default('https://api.linear.app/graphql')
    .describe("Linear's GraphQL API."),
  tokenEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, not a key')
    .default('LINEAR_API_KEY')
    .describe('The variable holding the API key (never the key itself).'),
  team: z
    .string()
    .regex(/^[A-Za-z0-9]{1,7}$/, "a team's key, such as ENG")
    .optional()
    .describe(
      'The team whose issues ralph works (its key); `ralph doctor` checks the key reaches it.',
    ),
});

export type LinearConfig = z.output<typeof LinearSchema>;
