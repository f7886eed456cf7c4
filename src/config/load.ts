/**
 * Configuration layers, later wins: defaults < config file < BORDERD_* environment < CLI flags.
 * Every leaf key has an environment name made from its path: server.port -> BORDERD_SERVER_PORT,
 * delivery.retryScheduleSeconds -> BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS (JSON for lists/maps).
 * A few short names cover what people type most.
 *
 * @module config/load
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { ZodType } from 'zod';
import { configSchema, type Config } from './schema.js';

/** A configuration that cannot be used: start-up and CLI commands stop with its lines, one per error (exit code 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Tree = Record<string, unknown>;

const SHORT_ENV: Record<string, string> = {
  BORDERD_HOST: 'server.host',
  BORDERD_PORT: 'server.port',
  BORDERD_DB: 'database.path',
  BORDERD_LOG_LEVEL: 'log.level',
  BORDERD_MASTER_KEY: 'security.masterKey',
  BORDERD_ADMIN_TOKEN: 'admin.token',
};

export interface LoadOptions {
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Dotted paths to values, e.g. { 'server.port': 9000 }. Undefined values are ignored. */
  flags?: Record<string, unknown>;
}

function isTree(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    if (!isTree(node[part])) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1] as string] = value;
}

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isTree(v) && isTree(out[k]) ? merge(out[k] as Tree, v) : v;
  }
  return out;
}

const toEnvName = (path: string): string =>
  'BORDERD_' +
  path
    .split('.')
    .map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_');

/** Leaf paths of the schema's shape, so env names exist for keys that have no default. */
export function leafPaths(shape: Record<string, unknown>): string[] {
  return [...leafSchemas(shape).keys()];
}

/** Each leaf path of the schema's shape with the schema of its value. */
function leafSchemas(shape: Record<string, unknown>, prefix = '', out = new Map<string, ZodType>()): Map<string, ZodType> {
  for (const [key, schema] of Object.entries(shape)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const inner = unwrapObject(schema);
    if (inner) leafSchemas(inner, path, out);
    else out.set(path, schema as ZodType);
  }
  return out;
}

function unwrapObject(schema: unknown): Record<string, unknown> | undefined {
  let s = schema as { def?: { type?: string; innerType?: unknown; shape?: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 5 && s?.def; i++) {
    if (s.def.type === 'object') return s.def.shape;
    s = s.def.innerType as typeof s;
  }
  return undefined;
}

/** What an environment string most likely means: a boolean, a number, JSON for lists and maps, else itself. */
function convertEnvValue(raw: string): unknown {
  const t = raw.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t.startsWith('[') || t.startsWith('{')) {
    try {
      return JSON.parse(t);
    } catch {
      return raw;
    }
  }
  return raw;
}

/** True when the value's type itself is refused (a string where a number belongs), not its content. */
function isTypeMismatch(schema: ZodType, value: unknown): boolean {
  const result = schema.safeParse(value);
  return !result.success && result.error.issues.some((issue) => issue.code === 'invalid_type' && issue.path.length === 0);
}

/**
 * An environment value is always a string, so the key's schema decides what it means: a string key
 * keeps "0" or "2024" as given (a header value, a token), other keys get the converted number,
 * boolean or JSON. When neither fits, the one refused for its content, not its type, is kept, so
 * the error says what is wrong with the value (port -5 is too small) rather than its type.
 */
function parseEnvValue(raw: string, schema: ZodType | undefined): unknown {
  const converted = convertEnvValue(raw);
  if (schema === undefined || converted === raw) return converted;
  if (schema.safeParse(raw).success) return raw;
  if (schema.safeParse(converted).success) return converted;
  return isTypeMismatch(schema, converted) && !isTypeMismatch(schema, raw) ? raw : converted;
}

/** Every environment name that sets a config key: BORDERD_ and the key's path, and the short ones. */
export function configEnvNames(): string[] {
  return [...Object.keys(SHORT_ENV), ...leafPaths(configSchema.shape).map(toEnvName)];
}

export function envLayer(env: NodeJS.ProcessEnv): { tree: Tree; sources: Map<string, string> } {
  const tree: Tree = {};
  const sources = new Map<string, string>();
  const schemas = leafSchemas(configSchema.shape);
  const byEnvName = new Map<string, string>(Object.entries(SHORT_ENV));
  for (const path of schemas.keys()) byEnvName.set(toEnvName(path), path);
  for (const [name, path] of byEnvName) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(tree, path, parseEnvValue(raw, schemas.get(path)));
    sources.set(path, `environment variable ${name}`);
  }
  return { tree, sources };
}

/** A YAML key with nothing after it (a section whose keys are all commented out) means "not set". */
function withoutNulls(tree: Tree): Tree {
  const out: Tree = {};
  for (const [k, v] of Object.entries(tree)) {
    if (v === null) continue;
    out[k] = isTree(v) ? withoutNulls(v) : v;
  }
  return out;
}

/**
 * One line, whatever the parser says: its messages end in a code frame over several lines, which
 * the CLI would print as is. The frame's position is given as "(line L, column C)" instead.
 */
function yamlErrorLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const firstLine = (text.split('\n').find((line) => line.trim() !== '') ?? '').replace(/ at line \d+, column \d+:?\s*$/, '').trim();
  const at = err instanceof YAMLParseError ? err.linePos?.[0] : undefined;
  return at ? `${firstLine} (line ${at.line}, column ${at.col})` : firstLine;
}

function readFileLayer(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${yamlErrorLine(err)}`);
  }
  if (parsed == null) return {};
  if (!isTree(parsed)) throw new ConfigError(`config file ${file} must hold a mapping of sections`);
  return withoutNulls(parsed);
}

const isUnder = (path: string, parent: string): boolean => path.startsWith(`${parent}.`);

/** The environment variable that set `key`, the value holding it (a list) or a key inside it. */
function envNameOf(sources: ReadonlyMap<string, string>, key: string): string | undefined {
  const parts = key.split('.');
  for (let n = parts.length; n > 0; n--) {
    const source = sources.get(parts.slice(0, n).join('.'));
    if (source !== undefined) return source;
  }
  for (const [path, source] of sources) if (isUnder(path, key)) return source;
  return undefined;
}

/**
 * Whether a tree has a value at `key` or a value that `key` lies within: a list, or a string that the
 * schema turns into one (server.trustProxy from the environment). Merging keeps such a value whole.
 */
function holds(tree: Tree, key: string): boolean {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (!isTree(node) && !Array.isArray(node)) return node !== undefined;
    node = (node as Tree)[part];
  }
  return node !== undefined;
}

/** One configuration layer as given, before merging, and how an error names it. */
interface Layer {
  tree: Tree;
  name: (key: string) => string;
}

/**
 * The source named in a config error at `key`: the highest layer that holds a value there, whether it
 * set that key, a list holding it or a key inside it. A required key nobody set is blamed on the layer
 * that set the object missing it (a header name without its value); "defaults" when no layer did.
 */
function sourceOf(key: string, merged: Tree, layers: readonly Layer[]): string {
  const holder = (path: string) => layers.find((layer) => holds(layer.tree, path))?.name(path);
  const parent = key.split('.').slice(0, -1).join('.');
  const missing = !holds(merged, key) && parent !== '';
  return holder(key) ?? (missing ? holder(parent) : undefined) ?? 'defaults';
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const fileTree = opts.file ? readFileLayer(opts.file) : {};
  const { tree: envTree, sources: envSources } = envLayer(opts.env ?? process.env);
  const flagTree: Tree = {};
  for (const [path, value] of Object.entries(opts.flags ?? {})) {
    if (value !== undefined) setPath(flagTree, path, value);
  }
  const merged = merge(merge(fileTree, envTree), flagTree);
  const result = configSchema.strict().safeParse(merged);
  if (!result.success) {
    const layers: Layer[] = [
      { tree: flagTree, name: () => 'command-line flag' },
      { tree: envTree, name: (path) => envNameOf(envSources, path) ?? 'the environment' },
      { tree: fileTree, name: () => `config file ${opts.file}` },
    ];
    // Every error at once, one line each: a config is not fixed one start at a time.
    const lines = result.error.issues.map((issue) => {
      const key = issue.path.join('.');
      const unknown = issue.code === 'unrecognized_keys';
      // An unknown key's issue sits on the object holding it; the key itself is what some layer set.
      const culprit = unknown && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]].join('.') : key;
      const message = unknown ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message;
      return `invalid config: ${key || '(top level)'}: ${message} (from ${sourceOf(culprit, merged, layers)})`;
    });
    throw new ConfigError([...new Set(lines)].join('\n'));
  }
  // Two databases named at once: which one was meant cannot be guessed.
  if (holds(merged, 'database.url') && holds(merged, 'database.path')) {
    const layers: Layer[] = [
      { tree: flagTree, name: (path) => (path === 'database.path' ? 'the --db flag' : 'the --database-url flag') },
      { tree: envTree, name: (path) => envNameOf(envSources, path) ?? 'the environment' },
      { tree: fileTree, name: () => `config file ${opts.file}` },
    ];
    throw new ConfigError(
      `database.path (from ${sourceOf('database.path', merged, layers)}) names a SQLite file and database.url ` +
        `(from ${sourceOf('database.url', merged, layers)}) a PostgreSQL database: give one of them`,
    );
  }
  return result.data;
}
