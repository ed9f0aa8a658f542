import type { Detector } from './detector.js';

/** IFSC: four letters for the bank, a zero, six letters or digits for the branch (e.g. SBIN0001234). It has no check character. */
export const IFSC: Detector = {
  id: 'ifsc',
  patterns: [{ re: /(?<![A-Za-z0-9])[A-Z]{4}0[A-Z0-9]{6}(?![A-Za-z0-9])/g }],
};
