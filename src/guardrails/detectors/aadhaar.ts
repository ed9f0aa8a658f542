import { digitsOf, verhoeffValid } from '../checksums.js';
import type { Detector } from './detector.js';

/**
 * Aadhaar: 12 digits, the first 2–9, written whole or as 4-4-4 with one kind of separator
 * (space or hyphen); the last digit is a Verhoeff check digit, so 9 in 10 random 12-digit
 * numbers are not taken for one.
 */
export const AADHAAR: Detector = {
  id: 'aadhaar',
  patterns: [{
    re: /(?<!\d[ -]?)(?<![A-Za-z])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![ -]?\d)(?![A-Za-z])/g,
    valid: (m) => verhoeffValid(digitsOf(m)),
  }],
};
