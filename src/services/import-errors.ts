/**
 * How an import that found errors is refused: one 400 listing the line errors (at most
 * MAX_LISTED_ERRORS of them), and nothing imported.
 *
 * @module services/import-errors
 */
import { badRequest, type BorderdError, type FieldError } from '../domain/errors.js';

/** At most this many line errors are listed; a file that is wrong everywhere still gives a readable answer. */
export const MAX_LISTED_ERRORS = 100;

export function importRefused(errors: FieldError[]): BorderdError {
  const listed = errors.slice(0, MAX_LISTED_ERRORS);
  if (errors.length > listed.length) listed.push({ path: 'file', message: `… and ${errors.length - listed.length} more error(s)` });
  return badRequest('import_failed', `${errors.length} error(s); nothing was imported`, listed);
}
