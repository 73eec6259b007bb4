import * as z from '../lib/zod.js';
import { DurationSchema } from '../config/values.js';

/** Where the queue is: `state/queue.json`, or a Postgres database a fleet of runners shares. */
export const QueueSchema = z
  .strictObject({
    backend: z
      .enum(['file', 'postgres'])
      .default('file')
      .describe('`file` (`state/queue.json`) or `postgres` (a queue shared by a fleet).'),
    url: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The database's URL (`postgres://…`); a secret: `RALPH_DATABASE_URL` is the better place, and wins over this.",
      ),
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
        'ASCII letters (a-z, A-Z), digits, ".", "_" or "-"',
      )
      .default('default')
      .describe("The queue's name in the database: one database may hold several queues."),
    tls: z
      .strictObject({
        ca: z.string().min(1).describe("The CA's certificate file.").optional(),
        cert: z.string().min(1).describe("The client certificate's file.").optional(),
        key: z.string().min(1).describe("The client certificate's key file.").optional(),
        rejectUnauthorized: z
          .boolean()
          .default(true)
          .describe('Off only for a test database with a self-signed certificate.'),
      })
      .optional()
      .describe('TLS to the database: files of the CA, and of a client certificate and its key.'),
    lease: DurationSchema.default(60).describe(
      "How long a running item's lease lasts unless its runner renews it.",
    ),
    maxDailyCostUsd: z
      .number()
      .positive()
      .optional()
      .describe('What the whole fleet may spend in a day (UTC), in USD; past it no runner claims.'),
  })
  .superRefine((queue, ctx) => {
    if (
      queue.backend === 'file' &&
      (queue.url !== undefined || queue.tls !== undefined || queue.maxDailyCostUsd !== undefined)
    )
      ctx.addIssue({
        code: 'custom',
        path: ['backend'],
        message: '"url", "tls" and "maxDailyCostUsd" are for "backend": "postgres"',
      });
  });
