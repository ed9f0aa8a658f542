/**
 * India's GST identifiers: the state codes (which also name the place of supply) and the GSTIN's
 * shape and check character. Plain data and arithmetic, read by the configuration (the operator's
 * own GSTIN and state) as well as by billing.
 */

/** GST state codes (CBIC): states and union territories, with the names postal lookups use. */
export const GST_STATES: ReadonlyMap<string, string> = new Map([
  ['01', 'Jammu and Kashmir'], ['02', 'Himachal Pradesh'], ['03', 'Punjab'], ['04', 'Chandigarh'],
  ['05', 'Uttarakhand'], ['06', 'Haryana'], ['07', 'Delhi'], ['08', 'Rajasthan'], ['09', 'Uttar Pradesh'],
  ['10', 'Bihar'], ['11', 'Sikkim'], ['12', 'Arunachal Pradesh'], ['13', 'Nagaland'], ['14', 'Manipur'],
  ['15', 'Mizoram'], ['16', 'Tripura'], ['17', 'Meghalaya'], ['18', 'Assam'], ['19', 'West Bengal'],
  ['20', 'Jharkhand'], ['21', 'Odisha'], ['22', 'Chhattisgarh'], ['23', 'Madhya Pradesh'], ['24', 'Gujarat'],
  ['26', 'Dadra and Nagar Haveli and Daman and Diu'], ['27', 'Maharashtra'], ['29', 'Karnataka'], ['30', 'Goa'],
  ['31', 'Lakshadweep'], ['32', 'Kerala'], ['33', 'Tamil Nadu'], ['34', 'Puducherry'],
  ['35', 'Andaman and Nicobar Islands'], ['36', 'Telangana'], ['37', 'Andhra Pradesh'], ['38', 'Ladakh'],
]);

const fold = (s: string): string => s.toLowerCase().replace(/&/g, 'and').replace(/[^a-z]/g, '');

// Old and alternative spellings that postal data and people still use.
const ALIASES: Record<string, string> = {
  orissa: '21', pondicherry: '34', chattisgarh: '22', uttaranchal: '05', nctofdelhi: '07', newdelhi: '07',
  dadraandnagarhaveli: '26', damananddiu: '26', andamanandnicobar: '35', jammuandkashmir: '01',
};
const BY_NAME = new Map<string, string>([...[...GST_STATES].map(([code, name]) => [fold(name), code] as const), ...Object.entries(ALIASES)]);

/** The GST state code for a code ('29') or a name ('Karnataka', 'Orissa'); null if neither. */
export function stateCodeOf(input: string): string | null {
  const s = input.trim();
  if (/^\d{2}$/.test(s)) return GST_STATES.has(s) ? s : null;
  return BY_NAME.get(fold(s)) ?? null;
}

const GSTIN_CHARS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
// State code, PAN (5 letters, 4 digits, 1 letter), entity number, 'Z', check character.
const GSTIN_RE = /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;

/** A GSTIN's shape and its check character (the GSTN's mod-36 Luhn variant). */
export function gstinValid(gstin: string): boolean {
  if (!GSTIN_RE.test(gstin)) return false;
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const p = GSTIN_CHARS.indexOf(gstin[i]) * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(p / 36) + (p % 36);
  }
  return GSTIN_CHARS[(36 - (sum % 36)) % 36] === gstin[14];
}
