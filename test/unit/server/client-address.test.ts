import type { IncomingMessage } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientAddresses, parseAddressRange } from '../../../server/http/client-address.js';

/** A request as the reader sees it: the socket's peer and the headers (lower-case names, as Node gives them). */
const request = (peer: string | undefined, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress: peer }, headers }) as unknown as IncomingMessage;

const trusting = (...entries: string[]) => clientAddresses(entries.map((entry) => parseAddressRange(entry)!));

test('TRUSTED_PROXIES entries: addresses and CIDR ranges of both families; anything else is null', () => {
  assert.equal(parseAddressRange('127.0.0.1'), { address: '127.0.0.1', prefix: 32, family: 'ipv4' });
  assert.equal(parseAddressRange(' 10.0.0.0/8 '), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  assert.equal(parseAddressRange('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  assert.equal(parseAddressRange('2001:db8::/32'), { address: '2001:db8::', prefix: 32, family: 'ipv6' });
  for (const entry of ['', 'localhost', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/8.5', '300.1.1.1', '1.2.3.4:80']) {
    assert.is(parseAddressRange(entry), null, entry);
  }
});

test('without trusted proxies the peer is the client and X-Forwarded-For is ignored', () => {
  const clients = clientAddresses();
  assert.is(clients.of(request('203.0.113.7', { 'x-forwarded-for': '198.51.100.1' })), '203.0.113.7');
  assert.is(clients.of(request('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.1' })), '127.0.0.1', 'mapped IPv4 is written plainly');
  assert.is(clients.of(request('2001:DB8::1')), '2001:db8::1');
  assert.is(clients.of(request(undefined)), '', 'a socket already closed');
});

test('through trusted proxies: the right-most address that is not a trusted proxy', () => {
  const clients = trusting('127.0.0.1', '10.0.0.0/8');
  const via = (xff: string | undefined, peer = '127.0.0.1') => clients.of(request(peer, xff === undefined ? {} : { 'x-forwarded-for': xff }));
  assert.is(via('198.51.100.1'), '198.51.100.1');
  assert.is(via('198.51.100.1', '::ffff:127.0.0.1'), '198.51.100.1', 'the trusted peer on a dual-stack socket');
  assert.is(via('6.6.6.6, 198.51.100.1'), '198.51.100.1', 'what the client itself wrote is to the left and ignored');
  assert.is(via('6.6.6.6, 198.51.100.1, 10.1.2.3'), '198.51.100.1', 'a chain of trusted proxies is walked through');
  assert.is(via('6.6.6.6,198.51.100.1 ,  10.1.2.3 '), '198.51.100.1', 'spacing does not matter');
  assert.is(via('10.9.9.9, 10.1.2.3'), '10.9.9.9', 'all trusted: the left-most');
  assert.is(via(undefined), '127.0.0.1', 'no header: the peer');
  assert.is(via(''), '127.0.0.1', 'an empty header: the peer');
  assert.is(via('not-an-address, 10.1.2.3'), 'not-an-address', 'a malformed hop ends the walk and is no trusted proxy');
  assert.is(via('198.51.100.1', '192.0.2.5'), '192.0.2.5', 'an untrusted peer: its X-Forwarded-For is ignored');
  assert.is(via('198.51.100.1', '127.0.0.2'), '127.0.0.2', 'a /32 entry trusts that one address only');
});

test('IPv6 proxies and ranges', () => {
  const clients = trusting('::1', 'fd00::/8');
  assert.is(clients.of(request('::1', { 'x-forwarded-for': '2001:db8::7, fd12::1' })), '2001:db8::7');
  assert.is(clients.of(request('fe80::1', { 'x-forwarded-for': '2001:db8::7' })), 'fe80::1');
});

test('isLocal: loopback client, and a forwarded request counts only through a trusted proxy that names the client', () => {
  const plain = clientAddresses();
  assert.ok(plain.isLocal(request('127.0.0.1')));
  assert.ok(plain.isLocal(request('::1')));
  assert.not.ok(plain.isLocal(request('203.0.113.7')));
  for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '127.0.0.1' }, { via: '1.1 proxy' }, { 'x-forwarded-host': 'x' }] as Record<string, string>[]) {
    assert.not.ok(plain.isLocal(request('127.0.0.1', headers)), JSON.stringify(headers));
  }
  const proxied = trusting('127.0.0.1');
  assert.ok(proxied.isLocal(request('127.0.0.1')), 'a direct request from this machine');
  assert.ok(proxied.isLocal(request('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' })), 'this machine through the proxy');
  assert.not.ok(proxied.isLocal(request('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' })), 'a stranger through the proxy');
  assert.not.ok(proxied.isLocal(request('127.0.0.1', { 'x-forwarded-proto': 'https' })), 'forwarded without naming the client');
  assert.not.ok(proxied.isLocal(request('127.0.0.2', { 'x-forwarded-for': '127.0.0.1' })), 'forwarded by an untrusted peer');
});

test.run();
