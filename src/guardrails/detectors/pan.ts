import type { Detector } from './detector.js';

/**
 * PAN: five letters, four digits, a letter (AAAAA9999A); the fourth letter is the holder's type
 * (P person, C company, H HUF, F firm or LLP, A association of persons, T trust, B body of
 * individuals, L local authority, J artificial juridical person, G government). PAN has no
 * check digit the issuer publishes, so the type letter is the only check.
 */
export const PAN_RE_SOURCE = '[A-Z]{3}[ABCFGHJLPT][A-Z]\\d{4}[A-Z]';

export const PAN: Detector = {
  id: 'pan',
  patterns: [{ re: new RegExp(`(?<![A-Za-z0-9])${PAN_RE_SOURCE}(?![A-Za-z0-9])`, 'g') }],
};
