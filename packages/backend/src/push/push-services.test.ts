import { describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  isPushServiceHost,
  KNOWN_PUSH_SERVICES,
  PushServiceListSchema,
  whyNotPushEndpoint,
} from './push-services.ts';

describe('push services', () => {
  it.each([
    ['fcm.googleapis.com', true],
    ['FCM.googleapis.com.', true],
    ['updates.push.services.mozilla.com', true],
    ['web.push.apple.com', true],
    ['wns2-par02p.notify.windows.com', true],
    ['push.apple.com', false],
    ['evilpush.apple.com', false],
    ['fcm.googleapis.com.evil.example', false],
    ['googleapis.com', false],
    ['127.0.0.1', false],
    ['localhost', false],
  ])('%s is a known push service: %s', (host, isKnown) => {
    expect(isPushServiceHost(host, KNOWN_PUSH_SERVICES)).toBe(isKnown);
  });

  it('takes https: on port 443 only', () => {
    expect(whyNotPushEndpoint(new URL('https://fcm.googleapis.com:443/fcm/send/x'), [])).toBeUndefined();
    expect(whyNotPushEndpoint(new URL('https://fcm.googleapis.com:8443/fcm/send/x'), [])).toMatch(
      /not a known push service/,
    );
    expect(whyNotPushEndpoint(new URL('http://fcm.googleapis.com/fcm/send/x'), [])).toMatch(
      /not a known push service/,
    );
  });

  it('reads CATALYST_PUSH_SERVICES as a comma list of host names or *.suffix, and no addresses', () => {
    expect(PushServiceListSchema.parse(' push.example.com, *.Push.Example.net ,')).toEqual([
      'push.example.com',
      '*.push.example.net',
    ]);
    for (const wrong of [
      '10.0.0.5',
      'localhost',
      '*',
      '*.com.',
      'https://push.example.com',
      'a b.example.com',
    ]) {
      expect(PushServiceListSchema.safeParse(wrong).success, wrong).toBe(false);
    }
  });

  it.each([
    ['127.0.0.1', false],
    ['10.0.0.5', false],
    ['172.16.3.4', false],
    ['192.168.1.20', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['[::1]', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b:1::a00:5', false],
    ['2002:a9fe:a9fe::1', false],
    ['::a9fe:a9fe', false],
    ['not an address', false],
    ['142.250.74.138', true],
    ['::ffff:142.250.74.138', true],
    ['2a00:1450:4007:80c::200a', true],
  ])('%s is a public address: %s', (address, isPublic) => {
    expect(isPublicAddress(address)).toBe(isPublic);
  });
});
