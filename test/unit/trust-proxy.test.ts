import { ConfigError, loadConfig } from '../../lib/config';
import { forwardedClient, parseTrustProxy, proxyTrust, TrustProxyError, type TrustProxy } from '../../lib/trust-proxy';

describe('parseTrustProxy (TRUST_PROXY)', () => {
  it('reads each form', () => {
    expect(parseTrustProxy(undefined)).toEqual({ mode: 'private' });
    expect(parseTrustProxy('  ')).toEqual({ mode: 'private' });
    expect(parseTrustProxy('false')).toEqual({ mode: 'off' });
    expect(parseTrustProxy('FALSE')).toEqual({ mode: 'off' });
    expect(parseTrustProxy('0')).toEqual({ mode: 'off' });
    expect(parseTrustProxy('true')).toEqual({ mode: 'all' });
    expect(parseTrustProxy('1')).toEqual({ mode: 'hops', hops: 1 });
    expect(parseTrustProxy('2')).toEqual({ mode: 'hops', hops: 2 });
    expect(parseTrustProxy('10.0.0.0/8, 192.168.1.5,fd00::/8,::ffff:10.9.0.0/112,loopback')).toEqual({
      mode: 'list',
      addresses: ['10.0.0.0/8', '192.168.1.5', 'fd00::/8', '::ffff:10.9.0.0/112', 'loopback'],
    });
  });

  it.each([
    ['-1', '"-1" is not a hop count: a whole number from 0 to 100 (0 is false)'],
    ['101', '"101" is not a hop count: a whole number from 0 to 100 (0 is false)'],
    ['10.0.0.0/33', '"10.0.0.0/33" is not a CIDR range: the prefix length of an IPv4 range is a number from 1 to 32'],
    ['10.0.0.0/0', '"10.0.0.0/0" is not a CIDR range: the prefix length of an IPv4 range is a number from 1 to 32'],
    ['10.0.0.0/', '"10.0.0.0/" is not a CIDR range: the prefix length of an IPv4 range is a number from 1 to 32'],
    ['fd00::/129', '"fd00::/129" is not a CIDR range: the prefix length of an IPv6 range is a number from 1 to 128'],
    ['10.0.0.0/255.0.0.0', '"10.0.0.0/255.0.0.0" is not a CIDR range: the prefix length of an IPv4 range is a number from 1 to 32'],
    ['10.0.0.0/8,proxy.internal', '"proxy.internal" is not an IPv4 or IPv6 address or CIDR range'],
    ['300.1.1.1', '"300.1.1.1" is not an IPv4 or IPv6 address or CIDR range'],
    ['127.1', '"127.1" is not an IPv4 or IPv6 address or CIDR range'],
    ['yes', '"yes" is not an IPv4 or IPv6 address or CIDR range'],
    [',', '"," names no address'],
  ])('refuses %j', (value, message) => {
    expect(() => parseTrustProxy(value)).toThrow(TrustProxyError);
    expect(() => parseTrustProxy(value)).toThrow(message);
  });

  it('is the config schema’s reading: the default, and a bad value stops the start naming TRUST_PROXY', () => {
    expect(loadConfig({}).orchestration.trustProxy).toEqual({ mode: 'private' });
    expect(loadConfig({ TRUST_PROXY: '' }).orchestration.trustProxy).toEqual({ mode: 'private' });
    expect(loadConfig({ TRUST_PROXY: '2' }).orchestration.trustProxy).toEqual({ mode: 'hops', hops: 2 });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,fd00::/8' }).orchestration.trustProxy).toEqual({
      mode: 'list',
      addresses: ['10.0.0.0/8', 'fd00::/8'],
    });
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      'invalid environment: TRUST_PROXY: "10.0.0.0/33" is not a CIDR range: the prefix length of an IPv4 range is a number from 1 to 32 (to trust every address, TRUST_PROXY=true); TRUST_PROXY is false, true, a hop count (such as 2) or comma-separated addresses and CIDR ranges (such as 10.0.0.0/8,fd00::/8)',
    );
    expect(() => loadConfig({ TRUST_PROXY: '-2' })).toThrow('invalid environment: TRUST_PROXY: "-2" is not a hop count');
  });
});

describe('forwardedClient (the trusted-proxies walk)', () => {
  const client = (setting: TrustProxy, peer: string, forwardedFor?: string) => forwardedClient(peer, forwardedFor, proxyTrust(setting));
  const byDefault: TrustProxy = { mode: 'private' };

  it('by default trusts a peer on loopback or a private range, IPv4-mapped forms included, and no other', () => {
    for (const peer of [
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.7',
      'fc00::1',
      'fd12:3456::1',
    ]) {
      expect([peer, client(byDefault, peer, '203.0.113.9')]).toEqual([
        peer,
        { address: '203.0.113.9', chain: ['203.0.113.9'], peerTrusted: true },
      ]);
    }
    for (const peer of ['::ffff:10.1.2.3', '::ffff:127.0.0.1', '::ffff:192.168.1.1']) {
      expect([peer, client(byDefault, peer, '203.0.113.9').address]).toEqual([peer, '203.0.113.9']);
    }
    for (const peer of [
      '203.0.113.5',
      '172.32.0.1',
      '192.169.0.1',
      '11.0.0.1',
      'fe80::1',
      '2001:db8::1',
      '::ffff:8.8.8.8',
      '::ffff:0a01:0203:1',
    ]) {
      expect([peer, client(byDefault, peer, '10.0.0.1, 198.51.100.1')]).toEqual([peer, { address: peer, chain: [], peerTrusted: false }]);
    }
  });

  it('walks from the right, skipping trusted hops: a forged leftmost entry never becomes the client', () => {
    expect(client(byDefault, '10.0.0.2', '198.51.100.1, 203.0.113.7, 10.0.0.9')).toEqual({
      address: '203.0.113.7',
      chain: ['203.0.113.7', '10.0.0.9'],
      peerTrusted: true,
    });
    // Every hop trusted: the leftmost is the client.
    expect(client(byDefault, '127.0.0.1', '10.0.0.3, 192.168.0.4').address).toBe('10.0.0.3');
    // No header: the peer itself.
    expect(client(byDefault, '127.0.0.1')).toEqual({ address: '127.0.0.1', chain: [], peerTrusted: true });
  });

  it('reads entries with a port, and stops at an entry that is not an address (the proxy that reported it is the client)', () => {
    expect(client(byDefault, '127.0.0.1', '203.0.113.1:5555').address).toBe('203.0.113.1');
    expect(client(byDefault, '127.0.0.1', '[2001:db8::1]:443').address).toBe('2001:db8::1');
    expect(client(byDefault, '127.0.0.1', 'unknown').address).toBe('127.0.0.1');
    expect(client(byDefault, '127.0.0.1', '203.0.113.1, 127.1').address).toBe('127.0.0.1');
    expect(client({ mode: 'all' }, '10.0.0.1', 'garbage, 203.0.113.1, 198.51.100.2').address).toBe('203.0.113.1');
    expect(client(byDefault, '10.0.0.1', `${'x'.repeat(5_000)}, 10.0.0.2`).address).toBe('10.0.0.2');
  });

  it('false trusts nobody; true every hop; a hop count that many hops whatever their addresses', () => {
    expect(client({ mode: 'off' }, '127.0.0.1', '203.0.113.1')).toEqual({ address: '127.0.0.1', chain: [], peerTrusted: false });
    expect(client({ mode: 'all' }, '203.0.113.50', '198.51.100.1, 203.0.113.1').address).toBe('198.51.100.1');
    const twoHops: TrustProxy = { mode: 'hops', hops: 2 };
    expect(client(twoHops, '203.0.113.50', 'forged, 198.51.100.7, 203.0.113.40')).toEqual({
      address: '198.51.100.7',
      chain: ['198.51.100.7', '203.0.113.40'],
      peerTrusted: true,
    });
    expect(client(twoHops, '203.0.113.50', '198.51.100.7').address).toBe('198.51.100.7');
    expect(client({ mode: 'hops', hops: 1 }, '203.0.113.50', 'forged, 198.51.100.7').address).toBe('198.51.100.7');
  });

  it('a list trusts exactly its addresses and ranges (IPv4 and IPv6), and only it honours X-Forwarded-Host', () => {
    const list = parseTrustProxy('10.0.0.0/8,192.168.1.5,fd00::/8');
    expect(client(list, '127.0.0.1', '203.0.113.1')).toEqual({ address: '127.0.0.1', chain: [], peerTrusted: false });
    expect(client(list, '192.168.1.6', '203.0.113.1').peerTrusted).toBe(false);
    expect(client(list, '192.168.1.5', '203.0.113.1, 10.200.0.1').address).toBe('203.0.113.1');
    expect(client(list, '::ffff:10.0.0.5', '203.0.113.1').address).toBe('203.0.113.1');
    expect(client(list, 'fd00:1::2', '2001:db8::7, fd00::9').address).toBe('2001:db8::7');
    expect(client(list, 'fe80::2', '2001:db8::7').peerTrusted).toBe(false);
    expect(proxyTrust(list).forwardedHost).toBe(true);
    for (const setting of [byDefault, { mode: 'off' }, { mode: 'all' }, { mode: 'hops', hops: 2 }] as const) {
      expect([setting.mode, proxyTrust(setting).forwardedHost]).toEqual([setting.mode, false]);
    }
  });
});
