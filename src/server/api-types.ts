// The shapes the API answers with, for its clients: the dashboard imports them from here
// rather than copying them. Types only, each the output of the schema GET /openapi.json
// describes the route with (src/server/responses.ts).
import type * as z from '../lib/zod.js';
import type * as answers from './responses.js';

/** `/health`: the status of `ralph status --json`, and what the server says of itself. */
export type Health = z.output<typeof answers.HealthAnswer>;

/** A running session as `/health` sends it: the seconds that count by themselves left out. */
export type HealthSession = Health['running'][number];

/** `GET /items`: the queue, each item without its task text, with why it waits. */
export type Items = z.output<typeof answers.ItemsAnswer>;

/** An item as `GET /items` lists it. */
export type ListedItem = Items['items'][number];

/** `GET /items/:id`: the item whole. */
export type ItemDetail = z.output<typeof answers.ItemAnswer>;

/** `GET /night`: the last run at a glance, each failure with the agent's last words. */
export type NightReport = z.output<typeof answers.NightAnswer>;

/** `GET /sessions`: a page of the index. */
export type Sessions = z.output<typeof answers.SessionsAnswer>;

/** A session as `GET /sessions` lists it. */
export type SessionEntry = Sessions['sessions'][number];

/** `GET /sessions/:id/events`: a page of a session's parsed stream. */
export type SessionEvents = z.output<typeof answers.SessionEventsAnswer>;

/** A parsed line of a session's stream, by its kind. */
export type SessionStreamEvent = z.output<typeof answers.StreamEventAnswer>;

/** `GET /report`: the sums by day, item and CLI since a time. */
export type Report = z.output<typeof answers.ReportAnswer>;

export type ReportGroup = Report['byDay'][number];

export type Diff = z.output<typeof answers.DiffAnswer>;
export type LogEntries = z.output<typeof answers.LogAnswer>;
export type PauseResult = z.output<typeof answers.PauseAnswer>;
export type ResumeResult = z.output<typeof answers.ResumeAnswer>;
export type ItemsChanged = z.output<typeof answers.ItemsChangedAnswer>;
export type ItemsRemoved = z.output<typeof answers.ItemsRemovedAnswer>;

/** `GET /review`: the items waiting on a person, most at risk first. */
export type Review = z.output<typeof answers.ReviewAnswer>;
export type ReviewRow = Review['items'][number];
/** `GET /items/:id/review`: everything needed to decide on one item. */
export type ReviewPage = z.output<typeof answers.ReviewPageAnswer>;
export type Rules = z.output<typeof answers.RulesAnswer>;
export type ProposedRule = Rules['proposed'][number];
export type RuleDecided = z.output<typeof answers.RuleDecidedAnswer>;
/** `POST /items/:id/accept|reject|defer`. */
export type Decided = z.output<typeof answers.DecidedAnswer>;

/** `POST /items/:id/messages`: what became of a message to an item's agent. */
export type MessageSaid = z.output<typeof answers.MessageSaidAnswer>;

/** `GET /sessions/:id`: a session's record. */
export type SessionRecordAnswer = z.output<typeof answers.SessionAnswer>;
