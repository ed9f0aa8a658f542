import type { Detector } from './detector.js';

/**
 * Indian mobile numbers: ten digits, the first 6–9, bare or after +91, 0091 or a trunk 0, the
 * ten written whole or 5-5. Mobile numbers carry no check digit.
 */
export const MOBILE: Detector = {
  id: 'mobile',
  patterns: [{ re: /(?<![\d+])(?<!\d[ -])(?:(?:\+91|0091)[ -]?|0)?[6-9]\d{4}[ -]?\d{5}(?![ -]?\d)/g }],
};
