import type { DetectorId } from '../../lib/guardrail-policy.js';
import { AADHAAR } from './aadhaar.js';
import { CARD } from './card.js';
import type { Detector } from './detector.js';
import { EMAIL } from './email.js';
import { GSTIN } from './gstin.js';
import { IFSC } from './ifsc.js';
import { MOBILE } from './mobile.js';
import { PAN } from './pan.js';
import { SECRET } from './secret.js';
import { UPI } from './upi.js';

/** Every detector by its id; adding one is a file and a line here (and its id in DETECTOR_IDS). */
export const DETECTORS: Readonly<Record<DetectorId, Detector>> = {
  aadhaar: AADHAAR, pan: PAN, gstin: GSTIN, upi: UPI, ifsc: IFSC, mobile: MOBILE, email: EMAIL, card: CARD, secret: SECRET,
};
