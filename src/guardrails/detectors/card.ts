import { digitsOf, luhnValid } from '../checksums.js';
import type { Detector } from './detector.js';

/** Payment card numbers: 13–19 digits, whole or grouped with spaces or hyphens, passing Luhn's check. */
export const CARD: Detector = {
  id: 'card',
  patterns: [{
    re: /(?<!\d[ -]?)[1-9](?:[ -]?\d){12,18}(?![ -]?\d)/g,
    valid: (m) => luhnValid(digitsOf(m)),
  }],
};
