/**
 * A guardrail policy: which detectors act and how (redact or block), and whether answers are
 * checked too. One text form serves the request header (`x-gw-guardrails`), the stored per-key
 * and per-org settings and the configuration default, so each is read by the same parser:
 *
 *   redact=aadhaar,pan;block=card,secret;outputs     off
 *
 * Groups name several detectors: `india` (aadhaar, pan, gstin, upi, ifsc, mobile), `secrets`
 * (secret), `all`. The body extension `guardrails` takes the same as an object
 * ({"redact":[…],"block":[…],"outputs":true}), the text, or false.
 */

export const DETECTOR_IDS = ['aadhaar', 'pan', 'gstin', 'upi', 'ifsc', 'mobile', 'email', 'card', 'secret'] as const;
export type DetectorId = (typeof DETECTOR_IDS)[number];
export type GuardAction = 'redact' | 'block';

// A Map, not an object's members: a name a client sends such as "constructor" would find Object.prototype's.
const GROUPS = new Map<string, readonly DetectorId[]>([
  ['all', DETECTOR_IDS],
  ['india', ['aadhaar', 'pan', 'gstin', 'upi', 'ifsc', 'mobile']],
  ['secrets', ['secret']],
]);

export interface GuardrailPolicy {
  /** Detectors whose matches are replaced by `[REDACTED:<id>]`; none of them also blocks. */
  readonly redact: readonly DetectorId[];
  /** Detectors whose match refuses the request (400 guardrail_blocked). */
  readonly block: readonly DetectorId[];
  /** Whether answers (whole and streamed) are checked as well as requests. */
  readonly outputs: boolean;
  /** The canonical text form, as stored and shown. */
  readonly text: string;
}

/** The policy that turns guardrails off at its level, over any less specific one. */
export const GUARDRAILS_OFF: GuardrailPolicy = Object.freeze({ redact: [], block: [], outputs: false, text: 'off' });

/** Whether a policy has anything to do. */
export function guardrailsOn(p: GuardrailPolicy | null): p is GuardrailPolicy {
  return p !== null && (p.redact.length > 0 || p.block.length > 0);
}

/** A parsed policy, or the reason the text is not one. */
export type PolicyParse = { policy: GuardrailPolicy; error: null } | { policy: null; error: string };

/** Reads the text form; parsing once per distinct text is the caller's to cache (policyFromText). */
export function parsePolicyText(text: string): PolicyParse {
  const t = text.trim();
  if (t === 'off' || t === 'none') return { policy: GUARDRAILS_OFF, error: null };
  const lists: Record<GuardAction, string[]> = { redact: [], block: [] };
  let outputs = false;
  for (const part of t.split(';')) {
    const p = part.trim();
    if (p === '') continue;
    if (p === 'outputs' || p === 'outputs=true') {
      outputs = true;
      continue;
    }
    if (p === 'outputs=false') continue;
    const eq = p.indexOf('=');
    const action = eq < 0 ? '' : p.slice(0, eq).trim();
    if (action !== 'redact' && action !== 'block') {
      return { policy: null, error: `'${p}' is not redact=<detectors>, block=<detectors> or outputs` };
    }
    lists[action].push(...p.slice(eq + 1).split(',').map((s) => s.trim()).filter((s) => s !== ''));
  }
  return policyOf(lists.redact, lists.block, outputs);
}

/** Reads the body extension's object form, or the text; `false` turns guardrails off. */
export function parsePolicyValue(v: unknown): PolicyParse {
  if (v === false) return { policy: GUARDRAILS_OFF, error: null };
  if (typeof v === 'string') return parsePolicyText(v);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { policy: null, error: 'expected an object, a policy string or false' };
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'redact' && k !== 'block' && k !== 'outputs') return { policy: null, error: `unknown member '${k}'` };
  const list = (x: unknown): string[] | null => x === undefined ? [] : Array.isArray(x) && x.every((s) => typeof s === 'string') ? x as string[] : null;
  const redact = list(o.redact);
  const block = list(o.block);
  if (redact === null || block === null) return { policy: null, error: "'redact' and 'block' must be arrays of detector names" };
  if (o.outputs !== undefined && typeof o.outputs !== 'boolean') return { policy: null, error: "'outputs' must be a boolean" };
  return policyOf(redact, block, o.outputs === true);
}

function policyOf(redactNames: string[], blockNames: string[], outputs: boolean): PolicyParse {
  const block = expand(blockNames);
  if (typeof block === 'string') return { policy: null, error: block };
  const redact = expand(redactNames);
  if (typeof redact === 'string') return { policy: null, error: redact };
  // Block is the stronger action: a detector named under both blocks.
  const redacted = redact.filter((d) => !block.includes(d));
  if (redacted.length === 0 && block.length === 0) return { policy: null, error: 'name at least one detector under redact or block, or say off' };
  const parts = [...(redacted.length > 0 ? [`redact=${redacted.join(',')}`] : []), ...(block.length > 0 ? [`block=${block.join(',')}`] : []),
    ...(outputs ? ['outputs'] : [])];
  return { policy: Object.freeze({ redact: redacted, block, outputs, text: parts.join(';') }), error: null };
}

/** Detector names and groups to detector ids in the catalog's order, or the first unknown name's message. */
function expand(names: string[]): DetectorId[] | string {
  const set = new Set<DetectorId>();
  for (const n of names) {
    const group = GROUPS.get(n);
    if (group !== undefined) for (const d of group) set.add(d);
    else if ((DETECTOR_IDS as readonly string[]).includes(n)) set.add(n as DetectorId);
    else return `unknown detector '${n}' (detectors: ${DETECTOR_IDS.join(', ')}; groups: ${[...GROUPS.keys()].join(', ')})`;
  }
  return DETECTOR_IDS.filter((d) => set.has(d));
}

const CACHE_LIMIT = 256;
const cache = new Map<string, GuardrailPolicy | null>();

/**
 * A stored or configured text's policy (null for text that is not one), parsed once per
 * distinct text: a key's or org's setting is read on every request it makes, and there are few
 * distinct settings.
 */
export function policyFromText(text: string): GuardrailPolicy | null {
  let p = cache.get(text);
  if (p === undefined) {
    p = parsePolicyText(text).policy;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(text, p);
  }
  return p;
}
