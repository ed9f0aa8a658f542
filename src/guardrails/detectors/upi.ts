import type { Detector } from './detector.js';

/**
 * UPI virtual payment addresses, handle@psp, whose PSP suffix is one the NPCI has issued to an
 * app or bank. An unknown suffix is not taken for one: without the list, every `name@word`
 * (a mention, a package scope) would be.
 */
const PSP_HANDLES = [
  // PhonePe, Google Pay, Paytm, Amazon Pay, WhatsApp, BHIM and the banks' own apps.
  'ybl', 'ibl', 'axl', 'okaxis', 'okhdfcbank', 'okicici', 'oksbi', 'paytm', 'ptyes', 'ptaxis', 'pthdfc', 'ptsbi', 'apl', 'yapl',
  'rapl', 'waicici', 'wahdfcbank', 'waaxis', 'wasbi', 'upi', 'axisbank', 'axisb', 'icici', 'sbi', 'hdfcbank', 'kotak', 'kmbl',
  'yesbank', 'yesbankltd', 'idfcbank', 'idfcfirst', 'indus', 'pnb', 'barodampay', 'unionbank', 'uboi', 'cnrb', 'federal', 'fbl',
  'kbl', 'aubank', 'rbl', 'ikwik', 'freecharge', 'airtel', 'jio', 'dbs', 'citi', 'hsbc', 'sc', 'boi', 'mahb', 'centralbank',
  'indianbank', 'iob', 'ucobank', 'equitas', 'jupiteraxis', 'fam', 'slc', 'superyes', 'naviaxis', 'postbank', 'abfspay',
  'okbizaxis', 'pingpay', 'timecosmos', 'tapicici', 'dlb', 'ratn', 'csbpay', 'kvb', 'tjsb', 'esaf', 'suryoday', 'utbi',
];

export const UPI: Detector = {
  id: 'upi',
  patterns: [{ re: new RegExp(`(?<![A-Za-z0-9._-])[A-Za-z0-9][A-Za-z0-9._-]{1,255}@(?:${PSP_HANDLES.join('|')})(?![A-Za-z0-9_@-])(?!\\.[A-Za-z0-9])`, 'gi'), needs: '@' }],
};
