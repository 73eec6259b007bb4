// A fake of Linear's GraphQL API on 127.0.0.1: teams, their workflow states (by type and
// position, as Linear orders them), issues with their creators, labels, projects, cycles,
// assignees, sub-issues and "blocks" relations, the state moves and comments ralph makes. It runs
// every document it is sent with graphql-js against a schema of the fields ralph reads: the SDK's
// own documents (`@linear/sdk`, which the suite drives it with) select more, and what the schema
// lacks is left out of the answer, as a client of a newer API than its server would see. Its
// input types are taken as they come (JSON), the filters ralph sends read as Linear reads them.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GraphQLError,
  GraphQLScalarType,
  Kind,
  buildSchema,
  execute,
  parse,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';

export const LINEAR_KEY = 'lin_api_test0123456789abcdef';

export interface FakeLinearUser {
  id: string;
  name: string;
  email: string;
  guest?: boolean;
  admin?: boolean;
}

export interface FakeLinearState {
  id: string;
  name: string;
  type: 'triage' | 'backlog' | 'unstarted' | 'started' | 'completed' | 'canceled';
  position: number;
}

export interface FakeLinearIssue {
  id: string;
  identifier: string;
  number: number;
  title: string;
  description: string;
  stateId: string;
  creatorId?: string;
  assigneeId?: string;
  labels: string[];
  project?: string;
  cycle?: number;
  parentId?: string;
  /** The ids of the issues this one blocks. */
  blocks: string[];
  comments: { id: string; body: string }[];
  /** Every state it was moved to, in order. */
  history: string[];
}

export interface FakeLinear {
  url: string;
  team: { id: string; key: string; name: string };
  states: FakeLinearState[];
  users: FakeLinearUser[];
  issues: FakeLinearIssue[];
  /** The key's scopes: `write` lets it change issues and comment. */
  scopes: string[];
  /** Every operation asked, by name. */
  operations: string[];
  /** Requests whose operation name matches are carried out, and their answer never sent. */
  swallow?: RegExp;
  /** Adds an issue of the team in the state of this type (the first of it). */
  addIssue(fields: Partial<FakeLinearIssue> & { title: string }): FakeLinearIssue;
  stateOf(issue: FakeLinearIssue): FakeLinearState;
  close(): Promise<void>;
}

const SCHEMA = `
  scalar IssueFilter
  scalar WorkflowStateFilter
  scalar IssueUpdateInput
  scalar CommentCreateInput
  type Query {
    viewer: User
    team(id: String!): Team
    teams: TeamConnection
    issue(id: String!): Issue
    workflowState(id: String!): WorkflowState
    user(id: String!): User
    issues(filter: IssueFilter, first: Int, after: String): IssueConnection
    workflowStates(filter: WorkflowStateFilter, first: Int, after: String): WorkflowStateConnection
  }
  type Mutation {
    issueUpdate(id: String!, input: IssueUpdateInput!): IssuePayload
    commentCreate(input: CommentCreateInput!): CommentPayload
  }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type User { id: String! name: String! displayName: String! email: String! guest: Boolean! admin: Boolean! active: Boolean! }
  type Team { id: String! key: String! name: String! states(first: Int, after: String): WorkflowStateConnection }
  type TeamConnection { nodes: [Team!]! pageInfo: PageInfo! }
  type WorkflowState { id: String! name: String! type: String! position: Float! team: Team }
  type WorkflowStateConnection { nodes: [WorkflowState!]! pageInfo: PageInfo! }
  type IssueLabel { id: String! name: String! }
  type IssueLabelConnection { nodes: [IssueLabel!]! pageInfo: PageInfo! }
  type Project { id: String! name: String! }
  type Cycle { id: String! number: Float! }
  type IssueRelation { id: String! type: String! issue: Issue! relatedIssue: Issue! }
  type IssueRelationConnection { nodes: [IssueRelation!]! pageInfo: PageInfo! }
  type Issue {
    id: String! identifier: String! number: Float! title: String! description: String url: String!
    state: WorkflowState! team: Team! creator: User assignee: User parent: Issue
    labels(first: Int): IssueLabelConnection! project: Project cycle: Cycle
    children(first: Int, after: String): IssueConnection!
    relations(first: Int, after: String): IssueRelationConnection!
    inverseRelations(first: Int, after: String): IssueRelationConnection!
    sharedAccess: IssueSharedAccess!
    reactions: [Reaction!]!
  }
  type IssueSharedAccess {
    isShared: Boolean! sharedWithCount: Int! viewerHasOnlySharedAccess: Boolean!
    disallowedIssueFields: [String!]! sharedWithUsers: [User!]!
  }
  type Reaction { id: String! emoji: String! }
  type IssueConnection { nodes: [Issue!]! pageInfo: PageInfo! }
  type IssuePayload { lastSyncId: Float! success: Boolean! issue: Issue }
  type Comment { id: String! body: String! }
  type CommentPayload { lastSyncId: Float! success: Boolean! comment: Comment }
`;

/** An error as Linear gives one: its type in `extensions`, read by the SDK. */
const linearError = (type: string, message: string) =>
  new GraphQLError(message, { extensions: { type, userPresentableMessage: message } });

/** The schema, with every input type a document names that it lacks taken as JSON. */
function schemaFor(document: DocumentNode, known: GraphQLSchema): GraphQLSchema {
  const missing = new Set<string>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.OPERATION_DEFINITION)
      for (const variable of definition.variableDefinitions ?? []) {
        let type = variable.type;
        while (type.kind !== Kind.NAMED_TYPE) type = type.type;
        if (known.getType(type.name.value) === undefined) missing.add(type.name.value);
      }
  if (missing.size === 0) return known;
  const config = known.toConfig();
  return new (known.constructor as typeof GraphQLSchema)({
    ...config,
    types: [...config.types, ...[...missing].map((name) => new GraphQLScalarType({ name }))],
  });
}

export async function startFakeLinear(): Promise<FakeLinear> {
  const team = { id: 'team-eng', key: 'ENG', name: 'Engineering' };
  const states: FakeLinearState[] = [
    { id: 'st-triage', name: 'Triage', type: 'triage', position: 0 },
    { id: 'st-backlog', name: 'Backlog', type: 'backlog', position: 1 },
    { id: 'st-todo', name: 'Todo', type: 'unstarted', position: 2 },
    { id: 'st-doing', name: 'In Progress', type: 'started', position: 3 },
    { id: 'st-review', name: 'In Review', type: 'started', position: 4 },
    { id: 'st-done', name: 'Done', type: 'completed', position: 5 },
    { id: 'st-canceled', name: 'Canceled', type: 'canceled', position: 6 },
  ];
  const users: FakeLinearUser[] = [
    { id: 'u-ada', name: 'Ada', email: 'ada@acme.example', admin: true },
    { id: 'u-bob', name: 'Bob', email: 'bob@acme.example' },
    { id: 'u-guest', name: 'Gus', email: 'gus@customer.example', guest: true },
  ];
  const issues: FakeLinearIssue[] = [];
  const fake = {
    team,
    states,
    users,
    issues,
    scopes: ['read', 'write'],
    operations: [] as string[],
    swallow: undefined as RegExp | undefined,
  };
  const stateOf = (issue: FakeLinearIssue): FakeLinearState => {
    const state = states.find((s) => s.id === issue.stateId);
    if (state === undefined) throw new Error(`no state ${issue.stateId}`);
    return state;
  };
  const userJson = (id: string | undefined) => {
    const user = users.find((u) => u.id === id);
    return user === undefined
      ? null
      : {
          ...user,
          displayName: user.name.toLowerCase(),
          guest: user.guest === true,
          admin: user.admin === true,
          active: true,
        };
  };
  const connection = <T>(nodes: T[]) => ({
    nodes,
    pageInfo: { hasNextPage: false, endCursor: null },
  });
  const stateJson = (state: FakeLinearState) => ({ ...state, team });
  const issueJson = (issue: FakeLinearIssue): Record<string, unknown> => ({
    id: issue.id,
    identifier: issue.identifier,
    number: issue.number,
    title: issue.title,
    description: issue.description,
    url: `https://linear.example/acme/issue/${issue.identifier}`,
    state: () => stateJson(stateOf(issue)),
    team,
    creator: () => userJson(issue.creatorId),
    assignee: () => userJson(issue.assigneeId),
    parent: () => {
      const parent = issues.find((i) => i.id === issue.parentId);
      return parent === undefined ? null : issueJson(parent);
    },
    labels: () => connection(issue.labels.map((name) => ({ id: `label-${name}`, name }))),
    project: issue.project === undefined ? null : { id: `p-${issue.project}`, name: issue.project },
    cycle: issue.cycle === undefined ? null : { id: `c-${issue.cycle}`, number: issue.cycle },
    children: () => connection(issues.filter((i) => i.parentId === issue.id).map(issueJson)),
    relations: () =>
      connection(
        issue.blocks.flatMap((id) => {
          const blocked = issues.find((i) => i.id === id);
          return blocked === undefined
            ? []
            : [
                {
                  id: `${issue.id}-${id}`,
                  type: 'blocks',
                  issue: issueJson(issue),
                  relatedIssue: issueJson(blocked),
                },
              ];
        }),
      ),
    // What the SDK's models of an issue need to be made.
    sharedAccess: {
      isShared: false,
      sharedWithCount: 0,
      viewerHasOnlySharedAccess: false,
      disallowedIssueFields: [],
      sharedWithUsers: [],
    },
    reactions: [],
    inverseRelations: () =>
      connection(
        issues
          .filter((i) => i.blocks.includes(issue.id))
          .map((blocker) => ({
            id: `${blocker.id}-${issue.id}`,
            type: 'blocks',
            issue: issueJson(blocker),
            relatedIssue: issueJson(issue),
          })),
      ),
  });
  /** Whether an issue passes the filter ralph sends (the parts of Linear's it uses). */
  const passes = (issue: FakeLinearIssue, filter: Record<string, unknown>): boolean => {
    const f = filter as {
      id?: { in?: string[] };
      team?: { key?: { eq?: string } };
      state?: { type?: { in?: string[] } };
      labels?: { name?: { eq?: string } };
      project?: { name?: { eq?: string } };
      cycle?: { number?: { eq?: number }; isActive?: { eq?: boolean } };
      assignee?: { email?: { eq?: string }; isMe?: { eq?: boolean } };
    };
    if (f.id?.in !== undefined && !f.id.in.includes(issue.id)) return false;
    if (f.team?.key?.eq !== undefined && f.team.key.eq !== team.key) return false;
    if (f.state?.type?.in !== undefined && !f.state.type.in.includes(stateOf(issue).type))
      return false;
    if (f.labels?.name?.eq !== undefined && !issue.labels.includes(f.labels.name.eq)) return false;
    if (f.project?.name?.eq !== undefined && issue.project !== f.project.name.eq) return false;
    if (f.cycle?.number?.eq !== undefined && issue.cycle !== f.cycle.number.eq) return false;
    if (f.cycle?.isActive?.eq === true && issue.cycle !== 1) return false;
    if (f.assignee?.isMe?.eq === true && issue.assigneeId !== 'u-ada') return false;
    if (
      f.assignee?.email?.eq !== undefined &&
      userJson(issue.assigneeId)?.email !== f.assignee.email.eq
    )
      return false;
    return true;
  };
  const writable = () => {
    if (!fake.scopes.includes('write'))
      throw linearError('forbidden', 'Invalid scope: `write` required');
  };
  const root = {
    viewer: () => userJson('u-ada'),
    team: ({ id }: { id: string }) =>
      id === team.id || id === team.key
        ? { ...team, states: () => connection(states.map(stateJson)) }
        : (() => {
            throw linearError('invalid input', 'Entity not found: Team');
          })(),
    teams: () => connection([team]),
    workflowState: ({ id }: { id: string }) => {
      const state = states.find((s) => s.id === id);
      if (state === undefined)
        throw linearError('invalid input', 'Entity not found: WorkflowState');
      return stateJson(state);
    },
    user: ({ id }: { id: string }) => userJson(id),
    issue: ({ id }: { id: string }) => {
      const issue = issues.find((i) => i.id === id || i.identifier === id);
      if (issue === undefined) throw linearError('invalid input', 'Entity not found: Issue');
      return issueJson(issue);
    },
    issues: ({
      filter,
      first,
      after,
    }: {
      filter?: Record<string, unknown>;
      first?: number;
      after?: string;
    }) => {
      const matching = issues.filter((i) => passes(i, filter ?? {}));
      const from = after === undefined || after === null ? 0 : Number(after);
      const size = first ?? 50;
      const page = matching.slice(from, from + size);
      const more = from + size < matching.length;
      return {
        nodes: page.map(issueJson),
        pageInfo: { hasNextPage: more, endCursor: more ? String(from + size) : null },
      };
    },
    workflowStates: ({ filter }: { filter?: { team?: { key?: { eq?: string } } } }) =>
      connection(
        filter?.team?.key?.eq === undefined || filter.team.key.eq === team.key
          ? states.map(stateJson)
          : [],
      ),
    issueUpdate: ({ id, input }: { id: string; input: { stateId?: string } }) => {
      writable();
      const issue = issues.find((i) => i.id === id);
      if (issue === undefined) throw linearError('invalid input', 'Entity not found: Issue');
      if (input.stateId !== undefined && input.stateId !== issue.stateId) {
        if (!states.some((s) => s.id === input.stateId))
          throw linearError('invalid input', 'Entity not found: WorkflowState');
        issue.stateId = input.stateId;
        issue.history.push(input.stateId);
      }
      return { lastSyncId: 1, success: true, issue: issueJson(issue) };
    },
    commentCreate: ({ input }: { input: { id?: string; issueId: string; body: string } }) => {
      writable();
      const issue = issues.find((i) => i.id === input.issueId);
      if (issue === undefined) throw linearError('invalid input', 'Entity not found: Issue');
      const id = input.id ?? randomUUID();
      if (issues.some((i) => i.comments.some((c) => c.id === id)))
        throw linearError('invalid input', 'Entity already exists: Comment');
      issue.comments.push({ id, body: input.body });
      return { lastSyncId: 1, success: true, comment: { id, body: input.body } };
    },
  };
  const known = buildSchema(SCHEMA);

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== LINEAR_KEY)
        return reply(400, {
          errors: [
            {
              message: 'Authentication required, not authenticated',
              extensions: {
                type: 'authentication error',
                userPresentableMessage: 'Authentication required, not authenticated.',
              },
            },
          ],
        });
      const { query, variables } = JSON.parse(raw) as {
        query: string;
        variables?: Record<string, unknown>;
      };
      const document = parse(query);
      const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
      const name =
        operation?.kind === Kind.OPERATION_DEFINITION ? (operation.name?.value ?? '') : '';
      fake.operations.push(name);
      const result = execute({
        schema: schemaFor(document, known),
        document,
        rootValue: root,
        variableValues: variables ?? {},
      }) as { data?: unknown; errors?: readonly GraphQLError[] };
      if (fake.swallow?.test(name) === true) return;
      reply(200, {
        data: result.data,
        ...(result.errors === undefined ? {} : { errors: result.errors.map((e) => e.toJSON()) }),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let numbers = 0;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/graphql`,
    stateOf,
    addIssue: (fields: Partial<FakeLinearIssue> & { title: string }) => {
      const number = ++numbers;
      const issue: FakeLinearIssue = {
        id: randomUUID(),
        identifier: `ENG-${number}`,
        number,
        description: '',
        stateId: 'st-todo',
        creatorId: 'u-ada',
        labels: [],
        blocks: [],
        comments: [],
        history: [],
        ...fields,
      };
      issues.push(issue);
      return issue;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
