import { setTimeout as delay } from 'node:timers/promises';
import type { LinearClient } from '@linear/sdk';

// Linear's GraphQL API through `@linear/sdk`: its client's documents for the viewer, a team's
// workflow states, an issue's move and a comment; one document of ralph's own (through the SDK's
// GraphQL client) for the issues and what they wait for, so that a team's issues, their states,
// creators, sub-issues and "blocks" relations come in a page a request, not a request a field.
// The SDK is loaded only here, when Linear is used.

/** What Linear is reached with: the workspace's `linear` settings and the key they name. */
export interface LinearAccess {
  apiUrl: string;
  tokenEnv: string;
  /** The key's value, from the variable `tokenEnv` names. */
  token: string | undefined;
  /** The longest `Retry-After` waited out in place before a rate limit is said (seconds). */
  maxRetryAfterSeconds?: number;
  /** What one second of waiting is in ms (the tests shorten it). */
  secondMs?: number;
  /** The longest one request is waited for. */
  timeoutMs?: number;
}

/** The state types an issue is over in: done for those that wait for it, or dropped. */
export const CLOSED_STATE_TYPES: ReadonlySet<string> = new Set(['completed', 'canceled']);

/** A workflow state of a team: its type says what it means, never its name. */
export interface LinearState {
  id: string;
  name: string;
  type: string;
  position: number;
}

/** Another issue, as one waits for it. */
export interface LinearRef {
  id: string;
  identifier: string;
  stateType: string;
}

/** An issue, with what ralph reads of it. */
export interface LinearIssue {
  id: string;
  identifier: string;
  number: number;
  title: string;
  description: string;
  url: string;
  state: LinearState;
  teamKey: string;
  /** Who made it: none for an issue an integration made (a form, a support tool). */
  creator?: { name: string; displayName: string; email: string; guest: boolean; admin: boolean };
  children: LinearRef[];
  /** The issues that block it ("blocks" relations to it). */
  blockedBy: LinearRef[];
}

/** Which of a team's issues to import: each given filter must hold. */
export interface LinearQuery {
  /** State types (`unstarted`, `backlog`…); default: `unstarted`. */
  states?: string[];
  label?: string;
  project?: string;
  /** A cycle's number, or `current`. */
  cycle?: string;
  /** An assignee's email, or `me`. */
  assignee?: string;
}

/** Why Linear refused or could not answer: what people must fix is in the message. */
export class LinearRefusal extends Error {
  constructor(
    readonly kind: 'auth' | 'not_found' | 'rate_limited' | 'unavailable' | 'refused',
    message: string,
  ) {
    super(message);
    this.name = 'LinearRefusal';
  }
}

const ISSUE_FIELDS = `
  id identifier number title description url
  state { id name type position }
  team { key }
  creator { name displayName email guest admin }
  children(first: 50) { nodes { id identifier state { type } } }
  inverseRelations(first: 50) { nodes { type issue { id identifier state { type } } } }
`;

/** Issues a request asks for, the most Linear gives in one page. */
const PAGE = 50;

const ISSUES_QUERY = `query RalphIssues($filter: IssueFilter, $after: String) {
  issues(filter: $filter, first: ${PAGE}, after: $after) {
    nodes { ${ISSUE_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`;

const ISSUE_QUERY = `query RalphIssue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} } }`;

/** The longest one request is waited for: Linear that does not answer is tried again later. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The most issues an import reads (its pages of fifty). */
const MAX_ISSUES = 1000;

interface RawRef {
  id: string;
  identifier: string;
  state: { type: string };
}

interface RawIssue {
  id: string;
  identifier: string;
  number: number;
  title: string;
  description?: string | null;
  url: string;
  state: LinearState;
  team: { key: string };
  creator?: {
    name: string;
    displayName: string;
    email: string;
    guest: boolean;
    admin: boolean;
  } | null;
  children: { nodes: RawRef[] };
  inverseRelations: { nodes: { type: string; issue: RawRef }[] };
}

const refOf = (raw: RawRef): LinearRef => ({
  id: raw.id,
  identifier: raw.identifier,
  stateType: raw.state.type,
});

function issueOf(raw: RawIssue): LinearIssue {
  return {
    id: raw.id,
    identifier: raw.identifier,
    number: raw.number,
    title: raw.title,
    description: raw.description ?? '',
    url: raw.url,
    state: raw.state,
    teamKey: raw.team.key,
    ...(raw.creator == null ? {} : { creator: raw.creator }),
    children: raw.children.nodes.map(refOf),
    blockedBy: raw.inverseRelations.nodes
      .filter((r) => r.type === 'blocks')
      .map((r) => refOf(r.issue)),
  };
}

/** The filter of a team's issues Linear is asked for. */
function filterOf(team: string, query: LinearQuery): Record<string, unknown> {
  const cycle = query.cycle;
  return {
    team: { key: { eq: team } },
    state: { type: { in: query.states ?? ['unstarted'] } },
    ...(query.label === undefined ? {} : { labels: { name: { eq: query.label } } }),
    ...(query.project === undefined ? {} : { project: { name: { eq: query.project } } }),
    ...(cycle === undefined
      ? {}
      : {
          cycle:
            cycle === 'current' ? { isActive: { eq: true } } : { number: { eq: Number(cycle) } },
        }),
    ...(query.assignee === undefined
      ? {}
      : {
          assignee:
            query.assignee === 'me' ? { isMe: { eq: true } } : { email: { eq: query.assignee } },
        }),
  };
}

/** Opens Linear with a key: a missing key is said with where it goes and what it needs. */
export async function openLinear(access: LinearAccess): Promise<LinearTracker> {
  if (access.token === undefined || access.token === '')
    throw new LinearRefusal(
      'auth',
      `no key in ${access.tokenEnv} (linear.tokenEnv): set it to a Linear API key (Settings → Security & access → Personal API keys) with "Read" and, for the write-back to the issues, "Write"`,
    );
  const { LinearClient } = await import('@linear/sdk');
  return new LinearTracker(
    new LinearClient({ apiKey: access.token, apiUrl: access.apiUrl }),
    access,
  );
}

/** A Linear workspace's issues, as ralph reads and moves them. */
export class LinearTracker {
  private readonly states = new Map<string, Promise<LinearState[]>>();

  constructor(
    private readonly client: LinearClient,
    private readonly access: LinearAccess,
  ) {}

  /** A request, tried again once after a short rate limit or a server's error. */
  private async call<T>(what: string, request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await withTimeout(request(), this.access.timeoutMs ?? REQUEST_TIMEOUT_MS);
      } catch (error) {
        const refusal = refusalOf(error, what, this.access);
        const wait = retryAfterOf(error);
        const short = wait !== undefined && wait <= (this.access.maxRetryAfterSeconds ?? 60);
        if (
          attempt > 0 ||
          !(refusal.kind === 'unavailable' || (refusal.kind === 'rate_limited' && short))
        )
          throw refusal;
        await delay((wait ?? 1) * (this.access.secondMs ?? 1000));
      }
    }
  }

  /** Who the key is (`ralph doctor`): reading it spends nothing. */
  async viewer(): Promise<{ name: string; email: string }> {
    const viewer = await this.call("reading the key's user", () => this.client.viewer);
    return { name: viewer.name, email: viewer.email };
  }

  /**
   * Whether the key may change issues, asked without changing one: a move of an issue that is
   * not there is refused for want of the scope before it is looked for.
   */
  async canWrite(): Promise<boolean> {
    try {
      await this.client.updateIssue('00000000-0000-4000-8000-000000000000', {});
      return true;
    } catch (error) {
      const refusal = refusalOf(error, 'asking whether the key may write', this.access);
      if (refusal.kind === 'auth' && /scope/i.test(refusal.message)) return false;
      if (refusal.kind === 'refused' || refusal.kind === 'not_found') return true;
      throw refusal;
    }
  }

  /** A team's workflow states, by position (read once). */
  teamStates(team: string): Promise<LinearState[]> {
    let states = this.states.get(team);
    if (states === undefined) {
      states = this.call(`reading the workflow states of team ${team}`, async () => {
        const found = await this.client.workflowStates({
          filter: { team: { key: { eq: team } } },
          first: 100,
        });
        return found.nodes
          .map((s) => ({ id: s.id, name: s.name, type: s.type, position: s.position }))
          .sort((a, b) => a.position - b.position);
      });
      this.states.set(team, states);
      states.catch(() => this.states.delete(team));
    }
    return states;
  }

  /** The team's issues the query matches, every page of them (up to a thousand). */
  issues(team: string, query: LinearQuery): Promise<LinearIssue[]> {
    return this.pages(`listing the issues of team ${team}`, filterOf(team, query));
  }

  /** Issues by their ids, whatever their team or state, fifty a request. */
  async issuesById(ids: readonly string[]): Promise<LinearIssue[]> {
    const found: LinearIssue[] = [];
    for (let at = 0; at < ids.length; at += PAGE)
      found.push(
        ...(await this.pages('reading the issues waited for', {
          id: { in: ids.slice(at, at + PAGE) },
        })),
      );
    return found;
  }

  /** The issues a filter matches, page after page. */
  private async pages(what: string, filter: Record<string, unknown>): Promise<LinearIssue[]> {
    const found: LinearIssue[] = [];
    let after: string | undefined;
    do {
      const page = await this.call(what, async () => {
        const answer = await this.client.client.rawRequest<
          {
            issues: {
              nodes: RawIssue[];
              pageInfo: { hasNextPage: boolean; endCursor?: string | null };
            };
          },
          Record<string, unknown>
        >(ISSUES_QUERY, { filter, after });
        return answer.data?.issues;
      });
      if (page === undefined) break;
      found.push(...page.nodes.map(issueOf));
      after = page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? undefined) : undefined;
    } while (after !== undefined && found.length < MAX_ISSUES);
    return found;
  }

  /** One issue as it is now (by its id or identifier). */
  async issue(id: string): Promise<LinearIssue> {
    const answer = await this.call(`reading the issue ${id}`, () =>
      this.client.client.rawRequest<{ issue: RawIssue }, Record<string, unknown>>(ISSUE_QUERY, {
        id,
      }),
    );
    if (answer.data?.issue == null)
      throw new LinearRefusal('not_found', `Linear has no issue ${id}`);
    return issueOf(answer.data.issue);
  }

  /** Moves an issue to a state. */
  async move(issue: string, state: string): Promise<void> {
    await this.call(`moving the issue ${issue}`, () =>
      this.client.updateIssue(issue, { stateId: state }),
    );
  }

  /**
   * Comments on an issue once: the comment's id is ralph's own, so that a second try (a runner
   * killed before it recorded the first) is refused as made already.
   */
  async comment(issue: string, id: string, body: string): Promise<void> {
    try {
      await this.call(`commenting on the issue ${issue}`, () =>
        this.client.createComment({ id, issueId: issue, body }),
      );
    } catch (error) {
      if (error instanceof LinearRefusal && /already exists/i.test(error.message)) return;
      throw error;
    }
  }
}

/** A request's answer, or a refusal when none came in time (the request is let go). */
async function withTimeout<T>(request: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LinearRefusal('unavailable', `no answer from Linear in ${ms / 1000} s`)),
      ms,
    );
  });
  try {
    return await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

function retryAfterOf(error: unknown): number | undefined {
  const after = (error as { retryAfter?: unknown } | null)?.retryAfter;
  return typeof after === 'number' ? after : undefined;
}

/** A failed request as people read it: what was being done, why, and the setting to fix. */
function refusalOf(error: unknown, what: string, access: LinearAccess): LinearRefusal {
  if (error instanceof LinearRefusal) return error;
  const type = (error as { type?: unknown } | null)?.type;
  const said =
    error instanceof Error ? (error.message.split('\n')[0]?.slice(0, 300) ?? '') : String(error);
  switch (type) {
    case 'AuthenticationError':
      return new LinearRefusal(
        'auth',
        `${what}: Linear refused the key in ${access.tokenEnv} (${said}); set ${access.tokenEnv} to a Linear API key`,
      );
    case 'Forbidden':
    case 'FeatureNotAccessible':
      return new LinearRefusal('auth', `${what}: the key in ${access.tokenEnv} may not (${said})`);
    case 'Ratelimited': {
      const wait = retryAfterOf(error);
      return new LinearRefusal(
        'rate_limited',
        `${what}: Linear's rate limit is reached; asked again ${wait === undefined ? 'later' : `in ${wait} s`}`,
      );
    }
    case 'InvalidInput':
    case 'UserError':
    case 'GraphqlError':
      return new LinearRefusal(
        /not found/i.test(said) ? 'not_found' : 'refused',
        `${what}: Linear refused it (${said})`,
      );
    default:
      return new LinearRefusal(
        'unavailable',
        `${what}: Linear cannot be reached at ${access.apiUrl} (linear.apiUrl; ${said})`,
      );
  }
}
