import { describe, expect, it } from 'vitest';
import { CliExit, listenFailure } from '../../src/cli/context.js';

const sysError = (syscall: string, code: string) => Object.assign(new Error(`${syscall} ${code}`), { syscall, code });

describe('listenFailure', () => {
  it('says why a listen failed in one line naming the address and the options that set it (exit 2)', () => {
    const cases: [Error, string][] = [
      [sysError('listen', 'EADDRINUSE'), 'cannot listen on 127.0.0.1:4242: the address is already in use (--host, --port)'],
      [sysError('getaddrinfo', 'ENOTFOUND'), 'cannot listen on 127.0.0.1:4242: the host name does not resolve (--host, --port)'],
      [
        sysError('listen', 'EADDRNOTAVAIL'),
        'cannot listen on 127.0.0.1:4242: no interface of this machine has that address (--host, --port)',
      ],
      [sysError('listen', 'EWHATEVER'), 'cannot listen on 127.0.0.1:4242: EWHATEVER (--host, --port)'],
    ];
    for (const [err, line] of cases) {
      const out = listenFailure(err, '127.0.0.1', 4242, '--host, --port');
      expect(out).toBeInstanceOf(CliExit);
      expect(out).toMatchObject({ code: 2, message: line });
    }
    expect((listenFailure(sysError('listen', 'EACCES'), '::1', 80, 'server.host, server.port') as CliExit).message).toBe(
      'cannot listen on [::1]:80: permission denied (server.host, server.port)',
    );
  });

  it('leaves any other error as it is', () => {
    const other = new Error('something else');
    expect(listenFailure(other, '127.0.0.1', 1, 'x')).toBe(other);
    const read = sysError('read', 'ECONNRESET');
    expect(listenFailure(read, '127.0.0.1', 1, 'x')).toBe(read);
  });
});
