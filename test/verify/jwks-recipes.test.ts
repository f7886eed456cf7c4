import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatch/dispatcher.js';
import { emitEvent } from '../../src/services/outbox.js';
import { listenOnLoopback, makeApi, makeContext, makeOrg, tempDir } from '../support/context.js';
import { startReceiver, type Received } from '../delivery/receiver.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BASE = '/v1/notifications/webhooks/settings';

/** The recipe of docs/verify.md marked `<!-- name -->`, as the docs print it. */
function recipe(name: string, lang: string): string {
  const doc = readFileSync(join(ROOT, 'docs', 'verify.md'), 'utf8');
  const m = new RegExp(`<!-- ${name} -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(doc);
  expect(m, `docs/verify.md has the recipe marked ${name}`).not.toBeNull();
  return m![1]!;
}

const works = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const hasPythonCryptography = works('python3', ['-c', 'import cryptography']);
const hasGo = works('go', ['version']);
const hasJava = works('javac', ['-version']) && works('java', ['-version']);

/** Runs a program without blocking the event loop (the API it fetches the JWKS from is in this process). */
function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { encoding: 'utf8', cwd, timeout: 170_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} failed: ${stderr || err.message}`)) : resolve(stdout.trim()),
    ),
  );
}

/**
 * A real delivery of a webhook with v1a, borderd's API on a socket, and the delivery written out for
 * a recipe's program: its body, its headers (`name: value` lines), and the same with a changed body.
 */
async function delivery() {
  const ctx = await makeContext();
  const { app, http, tokens } = makeApi(ctx);
  const org = await makeOrg(ctx, tokens);
  const base = await listenOnLoopback(app);
  const receiver = await startReceiver();
  const created = await http
    .post(BASE)
    .set('authorization', org.auth)
    .send({ url: receiver.url, signatureSchemes: ['x-signature', 'webhook-signature:v1', 'webhook-signature:v1a'] });
  expect(created.status).toBe(201);
  await emitEvent(ctx, org.org.id, 'Transaction_Updated', { status: 'Completed' });
  expect(await new Dispatcher(ctx).runOnce()).toBe(1);
  const r: Received = receiver.received[0]!;
  const dir = tempDir('borderd-recipes-');
  const names = ['x-signature', 'x-signature-key-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];
  writeFileSync(join(dir, 'headers.txt'), names.map((n) => `${n}: ${String(r.headers[n])}`).join('\n') + '\n');
  writeFileSync(join(dir, 'body.bin'), r.body);
  writeFileSync(join(dir, 'tampered.bin'), Buffer.from(r.body.toString().replace('Completed', 'Cancelled')));
  const jwksUrl = `${base}/v1/organizations/${org.org.id}/jwks.json`;
  return { dir, jwksUrl, args: (body: string) => [jwksUrl, join(dir, body), join(dir, 'headers.txt')] };
}

const VERIFIED = 'x-signature ok\nv1a ok';

describe('the JWKS recipes of docs/verify.md verify real deliveries', () => {
  it.skipIf(!hasPythonCryptography)('Python with cryptography (skipped where python3 or its cryptography package is absent)', async () => {
    const d = await delivery();
    const script = join(d.dir, 'verify.py');
    writeFileSync(
      script,
      `${recipe('python-jwks', 'python')}
import sys
url, body_path, headers_path = sys.argv[1:4]
body = open(body_path, "rb").read()
headers = dict(line.split(": ", 1) for line in open(headers_path).read().splitlines())
keys = fetch_keys(url)
for name, check in (("x-signature", verify_x_signature), ("v1a", verify_v1a)):
    try:
        check(keys, headers, body)
        print(name, "ok")
    except ValueError as e:
        print(name, "refused:", e)
`,
    );
    expect(await run('python3', [script, ...d.args('body.bin')])).toBe(VERIFIED);
    expect(await run('python3', [script, ...d.args('tampered.bin')])).toBe(
      'x-signature refused: x-signature does not verify\nv1a refused: no v1a signature verifies',
    );
  });

  it.skipIf(!hasGo)(
    'Go with the standard library (skipped where go is absent)',
    async () => {
      const d = await delivery();
      writeFileSync(join(d.dir, 'recipe.go'), recipe('go-jwks', 'go').replace(/^package \w+/m, 'package main'));
      writeFileSync(
        join(d.dir, 'main.go'),
        `package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	body, _ := os.ReadFile(os.Args[2])
	lines, _ := os.ReadFile(os.Args[3])
	h := http.Header{}
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\\n") {
		kv := strings.SplitN(l, ": ", 2)
		h.Set(kv[0], kv[1])
	}
	keys, err := FetchKeys(os.Args[1])
	if err != nil {
		fmt.Println("fetch failed:", err)
		os.Exit(1)
	}
	for _, c := range []struct {
		name  string
		check func() error
	}{{"x-signature", func() error { return VerifyXSignature(keys, h, body) }}, {"v1a", func() error { return VerifyV1a(keys, h, body) }}} {
		if err := c.check(); err != nil {
			fmt.Println(c.name, "refused")
		} else {
			fmt.Println(c.name, "ok")
		}
	}
}
`,
      );
      await run('go', ['build', '-o', 'verify', 'recipe.go', 'main.go'], d.dir);
      expect(await run(join(d.dir, 'verify'), d.args('body.bin'))).toBe(VERIFIED);
      expect(await run(join(d.dir, 'verify'), d.args('tampered.bin'))).toBe('x-signature refused\nv1a refused');
    },
    180_000,
  );

  it.skipIf(!hasJava)(
    'Java with the standard library (skipped where a JDK is absent)',
    async () => {
      const d = await delivery();
      writeFileSync(join(d.dir, 'BorderdKeys.java'), recipe('java-jwks', 'java'));
      writeFileSync(
        join(d.dir, 'Main.java'),
        `import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

public class Main {
  public static void main(String[] a) throws Exception {
    byte[] body = Files.readAllBytes(Path.of(a[1]));
    Map<String, String> h = new HashMap<>();
    for (String l : Files.readAllLines(Path.of(a[2]))) h.put(l.substring(0, l.indexOf(": ")), l.substring(l.indexOf(": ") + 2));
    Map<String, java.security.PublicKey> keys = BorderdKeys.fetch(a[0]);
    System.out.println(BorderdKeys.verifyXSignature(keys, h, body) ? "x-signature ok" : "x-signature refused");
    System.out.println(BorderdKeys.verifyV1a(keys, h, body) ? "v1a ok" : "v1a refused");
  }
}
`,
      );
      await run('javac', ['-d', d.dir, join(d.dir, 'BorderdKeys.java'), join(d.dir, 'Main.java')]);
      expect(await run('java', ['-cp', d.dir, 'Main', ...d.args('body.bin')])).toBe(VERIFIED);
      expect(await run('java', ['-cp', d.dir, 'Main', ...d.args('tampered.bin')])).toBe('x-signature refused\nv1a refused');
    },
    120_000,
  );
});
