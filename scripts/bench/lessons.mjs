// Row (`node scripts/bench.mjs --only lessons`, or this file alone): what the rules a person
// accepted cost the night's prompt cache. The real claude against the fake model API, two items
// of one night, first with no rule in force and then with ten: the share of the second item's
// cacheable bytes that are the same as the first item's, from the start, with the rules over
// without (its target: 1, every rule before the item's own text and the same for both items).
import { fileURLToPath } from 'node:url';
import { cachePrefixOf } from './cache-prefix.mjs';

const RULES = 10;

export async function lessonsFigures() {
  const without = await cachePrefixOf(0);
  const ruled = await cachePrefixOf(RULES);
  return {
    name: `cacheable prefix with ${RULES} rules in force, over none (lean)`,
    value: ruled.share / without.share,
    unit: 'x',
    measure: 'ratio',
    target: "≥ 0.99, and the first byte that differs in the item's own text",
    ok: ruled.rulesSeen && ruled.share / without.share >= 0.99 && ruled.same >= ruled.own,
    detail: `with the rules: ${ruled.same} of ${ruled.cacheable} cacheable bytes the same as the first item's (${(ruled.share * 100).toFixed(1)}%), the item's own text at byte ${ruled.own}; without: ${without.same} of ${without.cacheable} (${(without.share * 100).toFixed(1)}%); the rules add ${ruled.system - without.system} bytes to the system prompt, the same for every item; a cache read serves ${ruled.served} with them, ${without.served} without`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(await lessonsFigures(), null, 2));
