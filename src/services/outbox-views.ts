/**
 * The outbox as the API answers it: a delivery, its attempts, a webhook's health, a blocked line,
 * the event log, a replay's count and a test event's result. Each shape is declared once, here, as a
 * zod schema: the services return `z.infer` of it, the routes publish it in /openapi.json (under
 * components.schemas, by its `id`), and the console's types are generated from that document.
 *
 * @module services/outbox-views
 */
import { z } from 'zod';
import { instant } from '../domain/instant.js';
import { DELIVERY_STATES } from '../store/deliveries.js';
import { WEBHOOK_ORDERINGS } from '../store/webhooks.js';
import { EVENT_TYPES } from '../verify/events.js';

export const deliveryStateSchema = z.enum(DELIVERY_STATES).meta({ id: 'DeliveryState' });

export const eventTypeSchema = z.enum(EVENT_TYPES).meta({ id: 'EventType' });

export const periodSchema = z
  .object({
    attempts: z.number().int(),
    succeeded: z.number().int().describe('attempts answered with a 2xx'),
    successRate: z.number().nullable().describe('succeeded / attempts, from 0 to 1; null without attempts'),
    meanLatencyMs: z.number().nullable().describe('mean duration of the attempts; null without attempts'),
  })
  .meta({ id: 'PeriodStats' });
export type PeriodStats = z.infer<typeof periodSchema>;

export const healthSchema = z
  .object({
    webhookId: z.string(),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('why borderd disabled it; null when enabled or disabled by its owner'),
    disabledAt: instant.nullable(),
    lastSuccessAt: instant.nullable(),
    failuresInARow: z.number().int(),
    pending: z.number().int(),
    nextAttemptAt: instant.nullable().describe('when the next attempt is due; null when nothing is pending'),
    lastHour: periodSchema,
    lastDay: periodSchema,
    slow: z
      .boolean()
      .describe('its last attempt (of the last hour) took delivery.slowAfterMs or longer: it gives way to quicker endpoints'),
    hourly: z.array(periodSchema.extend({ hour: instant })).describe('the last 24 hours, one entry per UTC hour that had attempts'),
  })
  .meta({ id: 'WebhookHealth' });
export type HealthReport = z.infer<typeof healthSchema>;

export const deliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    webhookId: z.string(),
    orgId: z.string().describe('the organization whose event it is'),
    state: deliveryStateSchema,
    attempts: z.number().int(),
    step: z.number().int().describe('the step of the retry schedule its next attempt is at'),
    inFlight: z.boolean().describe('a dispatcher holds it: its attempt is being sent'),
    waitingBehind: z
      .string()
      .nullable()
      .describe(
        'on an ordered webhook, the pending delivery at the head of its line (dlv_…), which must succeed or be skipped or cancelled before this one goes; null when nothing is ahead',
      ),
    nextAttemptAt: instant.nullable().describe('when it is next tried; null unless pending'),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    deliveredAt: instant.nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'Delivery' });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const attemptSchema = z
  .object({
    attempt: z.number().int(),
    startedAt: instant,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    responseBody: z.string().nullable().describe('the first KiB of the answer'),
    requestHeaders: z
      .record(z.string(), z.string())
      .describe('the headers of the request that went out, as recorded with the attempt ({} when none went out)'),
    requestHeadersSource: z
      .enum(['sent', 'rebuilt'])
      .describe(
        'sent: exactly the headers that went out; rebuilt: an attempt recorded before borderd kept them, its headers made again ' +
          'from its key id and number, without the Standard Webhooks headers and traceparent, which are unknown',
      ),
  })
  .meta({ id: 'Attempt' });
export type AttemptView = z.infer<typeof attemptSchema>;

export const deliveryWithAttemptsSchema = z.object({ delivery: deliverySchema, attempts: z.array(attemptSchema) });
export type DeliveryWithAttempts = z.infer<typeof deliveryWithAttemptsSchema>;

export const blockedLineSchema = z
  .object({
    webhookId: z.string(),
    ordering: z.enum(WEBHOOK_ORDERINGS),
    resource: z.string().nullable().describe("the events' data.id (on a webhook in strict order, the head's: the whole webhook waits)"),
    headId: z.string().describe('the pending delivery at the head of the line; skip or cancel it to release the rest'),
    eventId: z.string(),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: instant,
    waiting: z.number().int().describe('pending deliveries behind the head'),
  })
  .meta({ id: 'BlockedLine' });
export type BlockedLine = z.infer<typeof blockedLineSchema>;

export const eventViewSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    createdAt: instant,
    deliveries: z
      .array(
        z.object({
          id: z.string(),
          webhookId: z.string(),
          state: deliveryStateSchema,
          attempts: z.number().int(),
          lastStatus: z.number().int().nullable(),
        }),
      )
      .describe('where the event went: one entry per webhook it was queued for'),
  })
  .meta({ id: 'OutboxEvent' });
export type EventView = z.infer<typeof eventViewSchema>;

export const replayResultSchema = z
  .object({
    events: z.number().int().describe('events considered'),
    requeued: z.number().int().describe('deliveries queued (rows already pending and types the webhook filters out are not)'),
  })
  .meta({ id: 'ReplayResult' });
export type ReplayResult = z.infer<typeof replayResultSchema>;

export const testEventResultSchema = z
  .object({
    event: z.object({ id: z.string(), type: z.string(), createdAt: instant }),
    delivery: deliverySchema,
    attempt: attemptSchema.nullable().describe('the first attempt, once the dispatcher has made it; null when it has not within the wait'),
  })
  .meta({ id: 'TestEventResult' });
export type TestEventResult = z.infer<typeof testEventResultSchema>;

/** A page of a list: its items, and whether more follow (ask again with startingAfter, the last id). */
export const pageSchema = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), hasMore: z.boolean() });
export interface Page<T> {
  data: T[];
  hasMore: boolean;
}
