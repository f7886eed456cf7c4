/** The path of console/src/generated/api-types.ts. */
export declare const CONSOLE_TYPES: string;
/** The text of console/src/generated/api-types.ts for an OpenAPI document. */
export declare function renderConsoleTypes(doc: unknown): Promise<string>;
