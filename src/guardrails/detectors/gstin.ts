import { gstinValid } from '../../lib/gst-codes.js';
import type { Detector } from './detector.js';

const HOLDER_TYPES = 'ABCFGHJLPT';

/**
 * GSTIN: a state code (01–38, 97 for other territory, 99 for the centre's own registrations),
 * the holder's PAN, an entity digit, 'Z' and the GSTN's mod-36 check character.
 */
export const GSTIN: Detector = {
  id: 'gstin',
  patterns: [{
    re: /(?<![A-Za-z0-9])\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z](?![A-Za-z0-9])/g,
    valid: (m) => stateCodeOk(m) && HOLDER_TYPES.includes(m[5]) && gstinValid(m),
  }],
};

function stateCodeOk(m: string): boolean {
  const state = Number(m.slice(0, 2));
  return (state >= 1 && state <= 38) || state === 97 || state === 99;
}
