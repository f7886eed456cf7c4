import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, embeddedIpv4, isPrivateAddress } from '../../src/domain/webhook-url.js';

const strict = { allowHttp: false, allowPrivateNetworks: false, maxUrlLength: 2048 };
const dev = { allowHttp: true, allowPrivateNetworks: true, maxUrlLength: 2048 };

describe('webhook url policy', () => {
  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:1.1.1.1']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses documentation, discard, Teredo and site-local ranges, and keeps their neighbours', () => {
    for (const a of [
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.255',
      '100::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:db8::1',
      'fec0::1',
      'feff::1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['192.0.3.1', '198.51.101.1', '203.0.114.1', '101::1', '2001:1::1', '2001:db9::1', '2001:4860:4860::8888'])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses IPv6 forms that reach a refused IPv4 address: NAT64, IPv4-compatible, 6to4, mapped in hex', () => {
    for (const a of [
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe', // 169.254.169.254
      '::127.0.0.1', // IPv4-compatible
      '::a00:1',
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::1',
      '2002:c0a8:0101:1::1', // 192.168.1.1
      '::ffff:7f00:1', // mapped, written in hex
      '64:ff9b:1::1', // local-use NAT64
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
      expect(checkWebhookUrl(`https://[${a}]/hook`, strict), a).toHaveLength(1);
    }
    // The same forms around public IPv4 addresses stay allowed.
    for (const a of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:808:808']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
    expect(embeddedIpv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:7f00:1')).toBe('127.0.0.1'); // IPv4-translated (SIIT)
    expect(isPrivateAddress('::ffff:0:a01:203')).toBe(true);
    expect(checkWebhookUrl('http://[::ffff:0:7f00:1]:19001/', { ...strict, allowHttp: true })[0]!.message).toMatch(/private/);
    expect(embeddedIpv4('2002:c0a8:0101::')).toBe('192.168.1.1');
    expect(embeddedIpv4('2606:4700:4700::1111')).toBeUndefined();
  });

  it('accepts public https and refuses the rest under production rules', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x?y=1', strict)).toEqual([]);
    expect(checkWebhookUrl('http://hooks.example.com/x', strict)[0]!.message).toMatch(/https/);
    expect(checkWebhookUrl('https://a:b@hooks.example.com/', strict)[0]!.message).toMatch(/credentials/);
    expect(checkWebhookUrl('https://192.168.0.10/', strict)[0]!.message).toMatch(/private/);
    expect(checkWebhookUrl('https://intranet/', strict)[0]!.message).toMatch(/private/);
    expect(checkWebhookUrl('/relative', strict)[0]!.path).toBe('body.url');
    for (const u of [
      ' https://hooks.example.com/x',
      'https://hooks.example.com/x\t',
      'https://hooks.exa\nmple.com/x',
      'https://hooks.example.com/\u0000',
      'https://hooks.example.com/\u007f',
    ]) {
      expect(checkWebhookUrl(u, strict), JSON.stringify(u)).toEqual([
        { path: 'body.url', message: 'must not contain spaces or control characters (percent-encode them)' },
      ]);
    }
    expect(checkWebhookUrl('https://hooks.example.com/a%20b', strict)).toEqual([]);
  });

  it('judges a fully qualified name (trailing dot) like the same name without it', () => {
    for (const u of [
      'https://localhost./',
      'https://api.localhost./',
      'https://metadata.google.internal./',
      'https://printer.local./',
      'https://intranet./',
      'https://intranet../',
    ]) {
      expect(checkWebhookUrl(u, strict), u).toEqual([
        { path: 'body.url', message: 'must not point at a private, loopback or link-local address' },
      ]);
    }
    expect(checkWebhookUrl('https://hooks.example.com./x', strict)).toEqual([]);
  });

  it('lets the development profile use http and loopback', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8081/hook', dev)).toEqual([]);
    expect(checkWebhookUrl('http://localhost:8081/hook', dev)).toEqual([]);
    expect(checkWebhookUrl('ftp://127.0.0.1/', dev)).toHaveLength(1);
  });
});
