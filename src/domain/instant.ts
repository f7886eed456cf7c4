/**
 * An instant in an answer: ISO 8601 in UTC with milliseconds, as every stored time is written
 * (`isoAt`). Published as `format: date-time`, the spec's type for these fields.
 *
 * @module domain/instant
 */
import { z } from 'zod';

export const instant = z.iso.datetime().describe('ISO 8601 instant in UTC, e.g. 2026-11-22T05:07:08.989Z');
