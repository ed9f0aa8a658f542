// What is left of a grab-bag, for the areas that still import it: cleanName lives in
// domain/display-name.ts, role and email parsing in teams/team-rules.ts, iso in lib/iso-time.ts.
export { cleanName } from '../domain/display-name.js';
export { iso } from '../lib/iso-time.js';
