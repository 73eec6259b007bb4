// Row (`node scripts/bench.mjs --only trackers`, or this file alone): what an import of a Linear
// team costs Linear's rate limit. A hundred issues, each with a sub-issue and a blocker, read
// from the suite's fake Linear (its test module, bundled here) the way ralph reads them (its own
// document through the SDK's GraphQL client: the issues with their states, creators, sub-issues
// and blockers, a page of fifty a request) and the way the SDK's models read them (a page of
// issues, then a request for each field that is another entity: state, creator, children, its
// relations). Requests are counted, so the ratio holds on any machine.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ISSUES = 100;

/** The fake Linear of the test suite, bundled from its TypeScript for this script. */
async function fakeLinear() {
  // Inside the checkout, where its packages (graphql) are found.
  const out = path.join(ROOT, 'bench-results', 'fake-linear.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'test', 'support', 'fake-linear.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });
  return import(pathToFileURL(out).href);
}

/** A fake Linear with the team's issues: each with a sub-issue and a blocker of its own. */
async function team(fake) {
  const linear = await fake.startFakeLinear();
  for (let n = 0; n < ISSUES; n++) {
    const issue = linear.addIssue({ title: `Issue ${n}`, labels: ['ralph'] });
    linear.addIssue({ title: `Part of ${n}`, parentId: issue.id, stateId: 'st-backlog' });
    const blocker = linear.addIssue({ title: `Before ${n}`, stateId: 'st-backlog' });
    blocker.blocks.push(issue.id);
  }
  return linear;
}

export async function trackerFigures() {
  const fake = await fakeLinear();
  const { openLinear } = await import(
    pathToFileURL(path.join(ROOT, 'dist', 'linear', 'tracker.js')).href
  );
  const { linearEntries } = await import(
    pathToFileURL(path.join(ROOT, 'dist', 'linear', 'issues.js')).href
  );
  const { LinearClient } = await import('@linear/sdk');
  const access = (url) => ({ apiUrl: url, tokenEnv: 'LINEAR_API_KEY', token: fake.LINEAR_KEY });

  const ours = await team(fake);
  const entries = await linearEntries(
    await openLinear(access(ours.url)),
    'ENG',
    { label: 'ralph' },
    [],
    {
      logins: [],
      others: 'skip',
    },
  );
  const ourRequests = ours.operations.length;
  await ours.close();

  const models = await team(fake);
  const client = new LinearClient({ apiKey: fake.LINEAR_KEY, apiUrl: models.url });
  let read = 0;
  let page = await client.issues({
    filter: { team: { key: { eq: 'ENG' } }, labels: { name: { eq: 'ralph' } } },
    first: 50,
  });
  // A connection's next page is added to its nodes.
  for (;;) {
    for (const issue of page.nodes.slice(read)) {
      await issue.state;
      await issue.creator;
      await issue.children();
      await issue.inverseRelations();
      read++;
    }
    if (!page.pageInfo.hasNextPage) break;
    page = await page.fetchNext();
  }
  const modelRequests = models.operations.length;
  await models.close();

  const ratio = ourRequests / modelRequests;
  return {
    name: `requests of a Linear import (${ISSUES} issues, a sub-issue and a blocker each), ralph's over the SDK's models`,
    value: ratio,
    unit: 'x',
    measure: 'ratio',
    target: '≤ 0.05',
    ok: ratio <= 0.05 && entries.length === ISSUES * 3 && read === ISSUES,
    detail: `ralph: ${ourRequests} requests for ${entries.length} entries (the ${ISSUES} labelled and the ${ISSUES * 2} they wait for, read whole in the pages and looked up by id once each); the SDK's models: ${modelRequests} for the ${ISSUES} labelled alone`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(await trackerFigures(), null, 2));
