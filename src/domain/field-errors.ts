/**
 * zod issues as the field errors of a 400 problem, each path starting with where the value was
 * (`body`, `query`, `line 12`…). One rule for the API, the importers and the CLI alike.
 *
 * @module domain/field-errors
 */
import type { z } from 'zod';
import type { FieldError } from './errors.js';

export function zodIssuesToFieldErrors(error: z.ZodError, location: string): FieldError[] {
  return error.issues.map((issue) => {
    const path = [location, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path, message: `unknown field(s): ${issue.keys.join(', ')}` };
    }
    return { path, message: issue.message };
  });
}
