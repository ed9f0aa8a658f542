import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { luhnValid, verhoeffValid } from '../../src/guardrails/checksums.js';
import { findAll, redacted } from '../../src/guardrails/text-scan.js';
import { DETECTOR_IDS, type DetectorId } from '../../src/lib/guardrail-policy.js';

/** The ids and matched texts `text` holds, for the given detectors (all by default). */
function hits(text: string, ids: readonly DetectorId[] = DETECTOR_IDS): [DetectorId, string][] {
  return findAll(text, ids).map((f) => [f.id, text.slice(f.start, f.end)]);
}

test('Verhoeff accepts an Aadhaar check digit and refuses every other digit in its place', () => {
  assert.ok(verhoeffValid('234123412346'));
  for (let d = 0; d < 10; d++) if (d !== 6) assert.not.ok(verhoeffValid(`23412341234${d}`), String(d));
});

test('Luhn accepts test card numbers and refuses a changed last digit', () => {
  for (const c of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117']) assert.ok(luhnValid(c), c);
  assert.not.ok(luhnValid('4111111111111112'));
});

test('finds an Aadhaar number whole, with spaces and with hyphens', () => {
  assert.equal(hits('my aadhaar is 234123412346.', ['aadhaar']), [['aadhaar', '234123412346']]);
  assert.equal(hits('UID: 2341 2341 2346', ['aadhaar']), [['aadhaar', '2341 2341 2346']]);
  assert.equal(hits('UID 4987-6543-2102 ok', ['aadhaar']), [['aadhaar', '4987-6543-2102']]);
});

test('a 12-digit number with a wrong Verhoeff digit, a leading 0 or 1, or mixed separators is not an Aadhaar', () => {
  assert.equal(hits('234123412345', ['aadhaar']), []);
  assert.equal(hits('2341 2341 2345', ['aadhaar']), []);
  assert.equal(hits('134123412346 and 034123412346', ['aadhaar']), []);
  assert.equal(hits('2341 2341-2346', ['aadhaar']), []);
  assert.equal(hits('order 12341234123462 shipped', ['aadhaar']), [], 'inside a longer number');
});

test('finds a PAN whose fourth letter is a holder type, and not one whose letter is not', () => {
  assert.equal(hits('PAN ABCPE1234F filed', ['pan']), [['pan', 'ABCPE1234F']]);
  assert.equal(hits('company AAGCB7383J', ['pan']), [['pan', 'AAGCB7383J']]);
  assert.equal(hits('ABCXE1234F', ['pan']), [], 'X is no holder type');
  assert.equal(hits('ABCPE1234FG and XABCPE1234F', ['pan']), [], 'inside a longer word');
  assert.equal(hits('abcpe1234f', ['pan']), [], 'PANs are written in capitals');
});

test('finds a GSTIN with a valid state code and check character, and not one with a wrong check character', () => {
  assert.equal(hits('GSTIN 27AAPFU0939F1ZV.', ['gstin']), [['gstin', '27AAPFU0939F1ZV']]);
  assert.equal(hits('29AAGCB7383J1Z4', ['gstin']), [['gstin', '29AAGCB7383J1Z4']]);
  assert.equal(hits('27AAPFU0939F1ZW', ['gstin']), [], 'wrong check character');
  assert.equal(hits('45AAPFU0939F1ZV', ['gstin']), [], 'no such state');
});

test('a GSTIN is reported as one, not as the PAN inside it', () => {
  assert.equal(hits('bill to 27AAPFU0939F1ZV', ['gstin', 'pan']), [['gstin', '27AAPFU0939F1ZV']]);
  assert.equal(hits('bill to 27AAPFU0939F1ZW', ['gstin', 'pan']), [], 'the PAN in a near-miss GSTIN is not whole');
});

test('finds UPI ids on known PSP handles and leaves other name@word text alone', () => {
  assert.equal(hits('pay ramesh.k@okhdfcbank now', ['upi']), [['upi', 'ramesh.k@okhdfcbank']]);
  assert.equal(hits('9876543210@ybl', ['upi']), [['upi', '9876543210@ybl']]);
  assert.equal(hits('shop@paytm.', ['upi']), [['upi', 'shop@paytm']]);
  assert.equal(hits('ping @team or npm i @types/node, user@example', ['upi']), []);
  assert.equal(hits('ramesh@okhdfcbank.com', ['upi']), [], 'an email domain, not a PSP');
});

test('finds an IFSC and not an 11-character code without the zero', () => {
  assert.equal(hits('IFSC: HDFC0001234', ['ifsc']), [['ifsc', 'HDFC0001234']]);
  assert.equal(hits('SBIN0ABC123', ['ifsc']), [['ifsc', 'SBIN0ABC123']]);
  assert.equal(hits('HDFC1001234 and XHDFC0001234', ['ifsc']), []);
});

test('finds +91, 0091, trunk-0 and bare mobile numbers starting 6-9', () => {
  assert.equal(hits('call +91 98765 43210', ['mobile']), [['mobile', '+91 98765 43210']]);
  assert.equal(hits('call +91-9876543210', ['mobile']), [['mobile', '+91-9876543210']]);
  assert.equal(hits('call 09876543210', ['mobile']), [['mobile', '09876543210']]);
  assert.equal(hits('call 7012345678.', ['mobile']), [['mobile', '7012345678']]);
  assert.equal(hits('00919876543210', ['mobile']), [['mobile', '00919876543210']]);
});

test('a number starting 0-5, too short or inside a longer number is not a mobile', () => {
  assert.equal(hits('5876543210 and 987654321 and 98765432101 and 1-9876543210-2', ['mobile']), []);
});

test('finds emails and refuses a domain without a letters-only TLD', () => {
  assert.equal(hits('write to Priya.Sharma+kyc@mail.example.co.in today', ['email']), [['email', 'Priya.Sharma+kyc@mail.example.co.in']]);
  assert.equal(hits('root@localhost and a@b.123', ['email']), []);
});

test('finds card numbers that pass Luhn, grouped or not, and not a 16-digit number that fails', () => {
  assert.equal(hits('card 4111 1111 1111 1111 exp', ['card']), [['card', '4111 1111 1111 1111']]);
  assert.equal(hits('5555-5555-5555-4444', ['card']), [['card', '5555-5555-5555-4444']]);
  assert.equal(hits('amex 378282246310005', ['card']), [['card', '378282246310005']]);
  assert.equal(hits('4111 1111 1111 1112', ['card']), []);
  assert.equal(hits('4111111111111112', ['card']), []);
  assert.equal(hits('411111111111', ['card']), [], 'twelve digits are too few');
});

test('finds provider, cloud and platform keys, PEM private keys and generated values assigned to secret names', () => {
  const cases: [string, string][] = [
    ['key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12 here', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12'],
    ['sk-ant-api03-abcdefghijklmnopqrstuvwxyz', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz'],
    ['gw-0123456789abcdefghijABCDEFGHIJ_-xy', 'gw-0123456789abcdefghijABCDEFGHIJ_-xy'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['ghp_0123456789abcdefghijABCDEFGHIJKLMNOP', 'ghp_0123456789abcdefghijABCDEFGHIJKLMNOP'],
    ['xoxb-123456789012-abcdefghij', 'xoxb-123456789012-abcdefghij'],
    ['api_key=Zx81kQ2mP9vL4tR7wY3n', 'Zx81kQ2mP9vL4tR7wY3n'],
    ['"client_secret": "a9F3kLm2Qp8Rt5Vw1Xy4Zb7C"', 'a9F3kLm2Qp8Rt5Vw1Xy4Zb7C'],
  ];
  for (const [text, secret] of cases) assert.equal(hits(text, ['secret']), [['secret', secret]], text);
  const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7bq\nabc\n-----END RSA PRIVATE KEY-----';
  assert.equal(hits(`here:\n${pem}\nthanks`, ['secret']), [['secret', pem]]);
});

test('words, short values and repeated characters assigned to secret names, and task-like words, are not secrets', () => {
  assert.equal(hits('password=changeme, api_key=aaaaaaaaaaaaaaaaaaaa1, secret: correcthorsebattery, task-force sk-short', ['secret']), []);
  assert.equal(hits('-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----', ['secret']), []);
});

test('redaction replaces each finding by its marker and keeps the text around it', () => {
  const text = 'Aadhaar 2341 2341 2346, PAN ABCPE1234F, card 4111111111111111.';
  assert.equal(redacted(text, findAll(text, DETECTOR_IDS)), 'Aadhaar [REDACTED:aadhaar], PAN [REDACTED:pan], card [REDACTED:card].');
});

test('a long run of digits or letters is scanned in linear time', () => {
  const t0 = performance.now();
  findAll(`${'1'.repeat(200_000)} ${'a'.repeat(200_000)} ${'1 '.repeat(100_000)} ${'a.'.repeat(100_000)}`, DETECTOR_IDS);
  assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
});

test.run();
