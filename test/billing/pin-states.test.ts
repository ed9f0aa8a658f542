import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GST_STATES } from '../../src/lib/gst-codes.js';
import { pinStates } from '../../src/billing/pin-states.js';

// A head post office of every state and union territory, with its GST state code.
const PLACES: [string, string, string][] = [
  ['110001', '07', 'New Delhi'], ['160017', '04', 'Chandigarh'], ['160062', '03', 'Mohali'], ['134109', '06', 'Panchkula'],
  ['141001', '03', 'Ludhiana'], ['171001', '02', 'Shimla'], ['180001', '01', 'Jammu'], ['190001', '01', 'Srinagar'],
  ['194101', '38', 'Leh'], ['226001', '09', 'Lucknow'], ['248001', '05', 'Dehradun'], ['263001', '05', 'Nainital'],
  ['302001', '08', 'Jaipur'], ['380001', '24', 'Ahmedabad'], ['362520', '26', 'Diu'], ['396230', '26', 'Silvassa'],
  ['400001', '27', 'Mumbai'], ['403001', '30', 'Panaji'], ['411001', '27', 'Pune'], ['462001', '23', 'Bhopal'],
  ['492001', '22', 'Raipur'], ['500001', '36', 'Hyderabad'], ['520001', '37', 'Vijayawada'], ['533464', '34', 'Yanam'],
  ['560001', '29', 'Bengaluru'], ['600001', '33', 'Chennai'], ['605001', '34', 'Puducherry'], ['609602', '34', 'Karaikal'],
  ['695001', '32', 'Thiruvananthapuram'], ['682001', '32', 'Kochi'], ['682555', '31', 'Kavaratti'], ['673310', '34', 'Mahe'],
  ['700001', '19', 'Kolkata'], ['737101', '11', 'Gangtok'], ['744101', '35', 'Port Blair'], ['751001', '21', 'Bhubaneswar'],
  ['781001', '18', 'Guwahati'], ['791111', '12', 'Itanagar'], ['793001', '17', 'Shillong'], ['795001', '14', 'Imphal'],
  ['796001', '15', 'Aizawl'], ['797001', '13', 'Kohima'], ['799001', '16', 'Agartala'], ['800001', '10', 'Patna'],
  ['834001', '20', 'Ranchi'],
];

test('the PIN code of a head post office in every state and union territory maps to that state', () => {
  for (const [pin, state, place] of PLACES) assert.ok(pinStates(pin)?.includes(state), `${place} ${pin} is in ${state}`);
  const covered = new Set(PLACES.map(([, s]) => s));
  assert.equal([...GST_STATES.keys()].filter((c) => !covered.has(c)), [], 'every GST state has an example');
});

test('a PIN code is refused for a state its circle does not serve', () => {
  for (const [pin, wrong] of [['110001', '29'], ['560001', '07'], ['400050', '29'], ['600001', '32'], ['834001', '21'], ['799001', '18']]) {
    assert.not.ok(pinStates(pin)!.includes(wrong), `${pin} is not in ${wrong}`);
  }
  assert.equal(pinStates('110001'), ['07']);
  assert.equal(pinStates('560001'), ['29']);
});

test('prefixes no circle uses and the Army Postal Service (90-99) are not checked', () => {
  for (const pin of ['290001', '350001', '540001', '650001', '860001', '900001', '999999']) assert.is(pinStates(pin), null, pin);
});

test.run();
