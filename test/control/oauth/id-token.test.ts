import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import { checkIdTokenClaims, decodeIdToken, keyFits, signatureValid } from '../../../src/control/oauth/id-token.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsaJwk = { ...(rsa.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'r1', use: 'sig' };
const ecJwk = { ...(ec.publicKey.export({ format: 'jwk' }) as JsonWebKey), kid: 'e1' };

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nowS = 1_900_000_000;
const want = { issuer: 'https://idp.example', clientId: 'gw', nonce: 'n-1', nowS };
const claims = (over: Record<string, unknown> = {}) => ({ iss: 'https://idp.example', aud: 'gw', sub: 's-1', exp: nowS + 300, iat: nowS, nonce: 'n-1', ...over });

function jwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject | null): string {
  const input = `${b64(header)}.${b64(payload)}`;
  if (!key) return `${input}.`;
  const sig = header.alg === 'ES256'
    ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
    : sign('sha256', Buffer.from(input), key);
  return `${input}.${sig.toString('base64url')}`;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.instance(e, GatewayError);
    assert.is((e as GatewayError).status, 400);
    assert.is((e as GatewayError).code, 'bad_request');
    return (e as GatewayError).message;
  }
  throw new Error('expected a 400');
}

test('an RS256 and an ES256 token verify with their JWKs and not with the other key', () => {
  const r = decodeIdToken(jwt({ alg: 'RS256', kid: 'r1' }, claims(), rsa.privateKey));
  assert.ok(keyFits(rsaJwk, r) && signatureValid(rsaJwk, r));
  assert.not.ok(keyFits(ecJwk, r));
  const e = decodeIdToken(jwt({ alg: 'ES256', kid: 'e1' }, claims(), ec.privateKey));
  assert.ok(keyFits(ecJwk, e) && signatureValid(ecJwk, e));
  assert.not.ok(keyFits(rsaJwk, e));
});

test('a tampered payload, another kid, or a key marked for encryption do not verify', () => {
  const token = jwt({ alg: 'RS256', kid: 'r1' }, claims(), rsa.privateKey);
  const [h, , s] = token.split('.');
  const forged = decodeIdToken(`${h}.${b64(claims({ sub: 'admin' }))}.${s}`);
  assert.not.ok(signatureValid(rsaJwk, forged));
  assert.not.ok(keyFits({ ...rsaJwk, kid: 'r2' }, decodeIdToken(token)));
  assert.not.ok(keyFits({ ...rsaJwk, use: 'enc' }, decodeIdToken(token)));
  assert.not.ok(keyFits({ ...rsaJwk, alg: 'PS256' }, decodeIdToken(token)));
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) as JsonWebKey;
  assert.not.ok(signatureValid(otherKey, decodeIdToken(token)));
  assert.not.ok(signatureValid({ kty: 'RSA', n: 'broken', e: 'AQAB' }, decodeIdToken(token)), 'a malformed key fails, not throws');
});

test('alg none, HS256 (the client secret as key) and PS256 are refused before any key is tried', () => {
  assert.match(refusal(() => decodeIdToken(jwt({ alg: 'none' }, claims(), null))), /algorithm none/);
  const input = `${b64({ alg: 'HS256' })}.${b64(claims())}`;
  const hs = `${input}.${createHmac('sha256', 'secret').update(input).digest('base64url')}`;
  assert.match(refusal(() => decodeIdToken(hs)), /algorithm HS256/);
  assert.match(refusal(() => decodeIdToken(jwt({ alg: 'PS256' }, claims(), null))), /algorithm PS256/);
  assert.match(refusal(() => decodeIdToken('a.b')), /not a signed JWT/);
  assert.match(refusal(() => decodeIdToken(undefined)), /missing/);
  assert.match(refusal(() => decodeIdToken(jwt({ alg: 'RS256', crit: ['exp'] }, claims(), rsa.privateKey))), /critical/);
});

test('claims: issuer, audience, azp, expiry with a minute of skew, nbf, nonce and subject are checked', () => {
  checkIdTokenClaims(claims(), want);
  checkIdTokenClaims(claims({ aud: ['gw'], exp: nowS - 30 }), want);
  checkIdTokenClaims(claims({ aud: ['gw', 'other'], azp: 'gw' }), want);
  assert.match(refusal(() => checkIdTokenClaims(claims({ iss: 'https://evil.example' }), want)), /issuer/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ aud: 'other' }), want)), /aud/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ aud: ['gw', 'other'] }), want)), /azp/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ azp: 'other' }), want)), /azp/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ exp: nowS - 61 }), want)), /expired/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ exp: undefined }), want)), /no expiry/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ nbf: nowS + 120 }), want)), /not valid yet/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ nonce: 'n-2' }), want)), /nonce/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ nonce: undefined }), want)), /nonce/);
  assert.match(refusal(() => checkIdTokenClaims(claims({ sub: '' }), want)), /subject/);
});

test.run();
