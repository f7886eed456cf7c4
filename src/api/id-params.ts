/**
 * The `{id}` path parameter of a resource route. Any string: an id that names nothing in the
 * organization is the 404 of an unknown id whatever its length or form, never a 400, so a caller
 * learns one thing about an id (found or not). Its size is bounded by the HTTP server's header limit.
 *
 * @module api/id-params
 */
import { z } from 'zod';

export const idParams = z.strictObject({ id: z.string() });
