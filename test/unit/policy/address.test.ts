import { describe, it, expect } from 'vitest';
import {
  classifyAddress,
  embeddedIPv4,
  isAllowlisted,
  isForbiddenAddress,
  parseCidrList,
  parseIPv6,
  type AddressClass,
} from '../../../src/policy/address.js';
import { PolicyError } from '../../../src/policy/errors.js';

// Literal strings only: nothing here touches the network.
describe('R-SSRF IPv4 classes', () => {
  it.each<[string, AddressClass]>([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['0.255.255.255', 'reserved'],
    ['1.0.0.0', 'public'],
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'public'],
    ['126.255.255.255', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['128.0.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['169.254.0.0', 'link_local'],
    ['169.254.169.254', 'link_local'],
    ['169.255.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.0', 'reserved'],
    ['192.0.0.255', 'reserved'],
    ['192.0.1.0', 'public'],
    ['192.0.2.1', 'reserved'],
    ['192.0.3.0', 'public'],
    ['192.88.99.1', 'reserved'],
    ['192.167.255.255', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['198.17.255.255', 'public'],
    ['198.18.0.0', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['203.0.114.0', 'public'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
  ])('R-SSRF: %s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('R-SSRF IPv6 classes', () => {
  it.each<[string, AddressClass]>([
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:0001', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::192.168.1.1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
    ['2001::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:db8:ffff::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['4000::1', 'reserved'],
    ['::2', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['2001:4860:4860::8888', 'public'],
  ])('R-SSRF: %s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('R-SSRF parsing is strict', () => {
  it.each([
    '',
    ' ',
    'localhost',
    'example.com',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3.-4',
    '01.2.3.4',
    '010.0.0.1',
    '127.1',
    '0x7f.0.0.1',
    '2130706433',
    '1::2::3',
    ':::',
    ':1::',
    '1:::2',
    '12345::',
    'g::1',
    '::ffff:1.2.3',
    '::ffff:1.2.3.256',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7::8',
    '::1%',
    '[::1',
    '::1.2.3.4:5',
  ])('R-SSRF: "%s" is invalid (and therefore forbidden)', (ip) => {
    expect(classifyAddress(ip)).toBe('invalid');
    expect(isForbiddenAddress(ip, parseCidrList(['0.0.0.0/0', '::/0']))).toBe(true);
  });

  it('R-SSRF: "::" fills the right number of zero groups', () => {
    expect(parseIPv6('1::8')).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8]);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0]);
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
  });

  it('R-SSRF: embedded IPv4 is found in mapped, NAT64 and 6to4 forms only', () => {
    expect(embeddedIPv4(parseIPv6('::ffff:7f00:1')!)).toEqual([127, 0, 0, 1]);
    expect(embeddedIPv4(parseIPv6('64:ff9b::a00:1')!)).toEqual([10, 0, 0, 1]);
    expect(embeddedIPv4(parseIPv6('2002:a00:1::1')!)).toEqual([10, 0, 0, 1]);
    expect(embeddedIPv4(parseIPv6('2606:4700::1')!)).toBeUndefined();
  });
});

describe('R-SSRF allowlist', () => {
  it('R-SSRF: CIDRs and bare addresses parse; host bits are cleared', () => {
    const [a, b, c, d] = parseCidrList(['127.0.0.1/32', '::1/128', ' 127.0.0.1/8 ', '10.1.2.3']);
    expect(a).toMatchObject({ family: 4, prefix: 32, bytes: [127, 0, 0, 1] });
    expect(b).toMatchObject({ family: 6, prefix: 128 });
    expect(c).toMatchObject({ family: 4, prefix: 8, bytes: [127, 0, 0, 0], text: '127.0.0.1/8' });
    expect(d).toMatchObject({ family: 4, prefix: 32, bytes: [10, 1, 2, 3] });
  });

  it.each([
    '127.0.0.1/33',
    '::1/129',
    'abc',
    '10.0.0.0/8/8',
    '10.0.0.0/',
    '10.0.0.0/08',
    '10.0.0.0/-1',
    '',
    '[::1]/128',
    'fe80::1%eth0/64',
    '127.1/8',
  ])('R-SSRF: bad allowlist entry "%s" throws naming it', (entry) => {
    let err: unknown;
    try {
      parseCidrList(['127.0.0.1/32', entry]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyError);
    expect((err as PolicyError).code).toBe('invalid_cidr');
    expect((err as PolicyError).message).toContain(`"${entry}"`);
  });

  it('R-SSRF: v4 entries match v4 addresses and their IPv4-mapped v6 forms', () => {
    const allow = parseCidrList(['127.0.0.1/32']);
    expect(isAllowlisted('127.0.0.1', allow)).toBe(true);
    expect(isAllowlisted('::ffff:127.0.0.1', allow)).toBe(true);
    expect(isAllowlisted('::ffff:7f00:1', allow)).toBe(true);
    expect(isAllowlisted('127.0.0.2', allow)).toBe(false);
    expect(isAllowlisted('::1', allow)).toBe(false);
    // NAT64 and 6to4 are other hosts as far as the allowlist is concerned.
    expect(isAllowlisted('64:ff9b::7f00:1', allow)).toBe(false);
    expect(isAllowlisted('garbage', allow)).toBe(false);
  });

  it('R-SSRF: v6 entries match v6 addresses only', () => {
    const allow = parseCidrList(['::1/128', 'fd00::/8']);
    expect(isAllowlisted('::1', allow)).toBe(true);
    expect(isAllowlisted('[::1]', allow)).toBe(true);
    expect(isAllowlisted('fdab::1', allow)).toBe(true);
    expect(isAllowlisted('fc00::1', allow)).toBe(false);
    expect(isAllowlisted('127.0.0.1', allow)).toBe(false);
  });

  it('R-SSRF: prefixes that are not byte-aligned match correctly', () => {
    const allow = parseCidrList(['100.64.0.0/10']);
    expect(isAllowlisted('100.127.255.255', allow)).toBe(true);
    expect(isAllowlisted('100.128.0.0', allow)).toBe(false);
    expect(isAllowlisted('100.63.255.255', allow)).toBe(false);
    expect(isAllowlisted('10.0.0.1', parseCidrList(['0.0.0.0/0']))).toBe(true);
    expect(isAllowlisted('::2', parseCidrList(['0.0.0.0/0']))).toBe(false);
  });
});

describe('R-SSRF forbidden addresses', () => {
  const allow = parseCidrList(['127.0.0.1/32']);

  it('R-SSRF: with only 127.0.0.1 allowed, other loopbacks are refused', () => {
    expect(isForbiddenAddress('127.0.0.1', allow)).toBe(false);
    expect(isForbiddenAddress('127.0.0.2', allow)).toBe(true);
    expect(isForbiddenAddress('::1', allow)).toBe(true);
    expect(isForbiddenAddress('::ffff:127.0.0.2', allow)).toBe(true);
    expect(isForbiddenAddress('::ffff:127.0.0.1', allow)).toBe(false);
  });

  it('R-SSRF: private, link-local, CGNAT, multicast, unspecified and reserved are refused', () => {
    for (const ip of [
      '10.0.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '::',
      'fe80::1',
      'fd00::1',
      'ff02::1',
      '2001:db8::1',
      '198.18.0.1',
    ]) {
      expect(isForbiddenAddress(ip, allow), ip).toBe(true);
    }
  });

  it('R-SSRF: public addresses pass without an allowlist', () => {
    for (const ip of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isForbiddenAddress(ip, [])).toBe(false);
  });
});
