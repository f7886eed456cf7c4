/**
 * The request's raw JSON body, kept by the body parser (app.ts) for the routes that store or check
 * its exact bytes (the card-network intake, the lone-surrogate scan in route.ts). Declared in a
 * module of its own so that every module reading it, compiled alone or not, sees the declaration.
 *
 * @module api/raw-body
 */
declare module 'http' {
  interface IncomingMessage {
    /** The exact bytes of a JSON request body, kept for routes that store or verify them. */
    rawBody?: Buffer;
    /** The charset the JSON parser decoded rawBody with (from Content-Type; utf-8 when none is named). */
    rawBodyCharset?: string;
  }
}

export {};
