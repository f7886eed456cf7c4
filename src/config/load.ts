import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { configSchema, type Config } from './schema.js';

/**
 * Configuration layers, later wins: defaults < config file < BORDERD_* environment < CLI flags.
 * Every leaf key has an environment name made from its path: server.port -> BORDERD_SERVER_PORT,
 * delivery.retryScheduleSeconds -> BORDERD_DELIVERY_RETRY_SCHEDULE_SECONDS (JSON for lists/maps).
 * A few short names cover what people type most.
 */
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
  'BORDERD_' + path.split('.').map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');

/** Leaf paths of the schema's shape, so env names exist for keys that have no default. */
export function leafPaths(shape: Record<string, unknown>, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const inner = unwrapObject(schema);
    if (inner) out.push(...leafPaths(inner, path));
    else out.push(path);
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

function parseEnvValue(raw: string): unknown {
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

export function envLayer(env: NodeJS.ProcessEnv): { tree: Tree; sources: Map<string, string> } {
  const tree: Tree = {};
  const sources = new Map<string, string>();
  const byEnvName = new Map<string, string>(Object.entries(SHORT_ENV));
  for (const path of leafPaths(configSchema.shape)) byEnvName.set(toEnvName(path), path);
  for (const [name, path] of byEnvName) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(tree, path, parseEnvValue(raw));
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
    throw new ConfigError(`config file ${file} is not valid YAML: ${(err as Error).message}`);
  }
  if (parsed == null) return {};
  if (!isTree(parsed)) throw new ConfigError(`config file ${file} must hold a mapping of sections`);
  return withoutNulls(parsed);
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const fileTree = opts.file ? readFileLayer(opts.file) : {};
  const { tree: envTree, sources } = envLayer(opts.env ?? process.env);
  const flagTree: Tree = {};
  for (const [path, value] of Object.entries(opts.flags ?? {})) {
    if (value === undefined) continue;
    setPath(flagTree, path, value);
    sources.set(path, 'command-line flag');
  }
  const merged = merge(merge(fileTree, envTree), flagTree);
  const result = configSchema.strict().safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = issue.path.join('.');
    const from = sources.get(key) ?? (opts.file ? `config file ${opts.file}` : 'defaults');
    const message = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message;
    throw new ConfigError(`invalid config: ${key || '(top level)'}: ${message} (from ${from})`);
  }
  return result.data;
}
