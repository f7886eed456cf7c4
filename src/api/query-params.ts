/**
 * An integer query parameter within bounds, parsed strictly: only digits, so "5.5", "1e1", " 5" or
 * "0x10" are a 400 naming the bounds, never coerced or clamped. It arrives as text but is described
 * in /openapi.json as the integer it is, with its bounds and default (OpenAPI reads a query value by
 * its schema's type), not as the digit pattern that checks it.
 *
 * @module api/query-params
 */
import { z } from 'zod';

export function integerParam(opts: { min: number; max: number; default: number }) {
  const message = `must be an integer from ${opts.min} to ${opts.max}`;
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .pipe(z.number().int().min(opts.min, message).max(opts.max, message))
    .default(opts.default)
    .meta({ type: 'integer', minimum: opts.min, maximum: opts.max, default: opts.default });
}
