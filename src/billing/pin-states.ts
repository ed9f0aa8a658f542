/**
 * Which states a PIN code may be in, from its leading digits (India Post's postal circles), so a
 * billing address cannot pair a PIN with another state: the state is the GST place of supply and
 * decides CGST+SGST or IGST. Offline on purpose: saving an address must not depend on the
 * public PIN lookup service being up.
 *
 * The first two digits name a postal circle, which mostly is one state. Where a circle serves more
 * than one state or union territory, the prefix maps to each of them (listed below), so no real
 * address is refused; the check still catches the wrong state the form makes easy to pick
 * (110001, Delhi, saved with Karnataka). Three digits are used where they settle it (the
 * North-East circle). Prefixes no circle uses, and 90-99 (the Army Postal Service, which has no
 * state), are not checked.
 *
 * | prefix | GST state codes |
 * |---|---|
 * | 11 | 07 Delhi |
 * | 12-13 | 06 Haryana |
 * | 14-15 | 03 Punjab |
 * | 16 | 03 Punjab, 04 Chandigarh (160: Chandigarh and Mohali) |
 * | 17 | 02 Himachal Pradesh |
 * | 18 | 01 Jammu and Kashmir |
 * | 19 | 01 Jammu and Kashmir, 38 Ladakh (194: Leh, Kargil) |
 * | 20-23, 25, 27-28 | 09 Uttar Pradesh |
 * | 24, 26 | 09 Uttar Pradesh, 05 Uttarakhand (244-249, 262-263) |
 * | 30-34 | 08 Rajasthan |
 * | 36, 39 | 24 Gujarat, 26 Dadra and Nagar Haveli and Daman and Diu (362 Diu, 396 Daman, Silvassa) |
 * | 37-38 | 24 Gujarat |
 * | 40 | 27 Maharashtra, 30 Goa (403) |
 * | 41-44 | 27 Maharashtra |
 * | 45-48 | 23 Madhya Pradesh |
 * | 49 | 22 Chhattisgarh |
 * | 50 | 36 Telangana, 37 Andhra Pradesh (507: mandals moved to Andhra Pradesh in 2014) |
 * | 51-52 | 37 Andhra Pradesh |
 * | 53 | 37 Andhra Pradesh, 34 Puducherry (533: Yanam) |
 * | 56-59 | 29 Karnataka |
 * | 60 | 33 Tamil Nadu, 34 Puducherry (605 Puducherry, 609 Karaikal) |
 * | 61-64 | 33 Tamil Nadu |
 * | 67 | 32 Kerala, 34 Puducherry (673: Mahe) |
 * | 68 | 32 Kerala, 31 Lakshadweep (682) |
 * | 69 | 32 Kerala |
 * | 70-72 | 19 West Bengal |
 * | 73 | 19 West Bengal, 11 Sikkim (737) |
 * | 74 | 19 West Bengal, 35 Andaman and Nicobar Islands (744) |
 * | 75-77 | 21 Odisha |
 * | 78 | 18 Assam |
 * | 790-792 | 12 Arunachal Pradesh |
 * | 793-794 | 17 Meghalaya |
 * | 795 | 14 Manipur |
 * | 796 | 15 Mizoram |
 * | 797-798 | 13 Nagaland |
 * | 799 | 16 Tripura |
 * | 80, 84-85 | 10 Bihar |
 * | 81-82 | 10 Bihar, 20 Jharkhand (813-816, 822, 825-829) |
 * | 83 | 20 Jharkhand |
 */
const BY_PREFIX = new Map<string, readonly string[]>();
const put = (prefixes: string[], states: string[]): void => {
  for (const p of prefixes) BY_PREFIX.set(p, states);
};
const span = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

put(['11'], ['07']);
put(['12', '13'], ['06']);
put(['14', '15'], ['03']);
put(['16'], ['03', '04']);
put(['17'], ['02']);
put(['18'], ['01']);
put(['19'], ['01', '38']);
put(['20', '21', '22', '23', '25', '27', '28'], ['09']);
put(['24', '26'], ['09', '05']);
put(span(30, 34), ['08']);
put(['36', '39'], ['24', '26']);
put(['37', '38'], ['24']);
put(['40'], ['27', '30']);
put(span(41, 44), ['27']);
put(span(45, 48), ['23']);
put(['49'], ['22']);
put(['50'], ['36', '37']);
put(['51', '52'], ['37']);
put(['53'], ['37', '34']);
put(span(56, 59), ['29']);
put(['60'], ['33', '34']);
put(span(61, 64), ['33']);
put(['67'], ['32', '34']);
put(['68'], ['32', '31']);
put(['69'], ['32']);
put(span(70, 72), ['19']);
put(['73'], ['19', '11']);
put(['74'], ['19', '35']);
put(span(75, 77), ['21']);
put(['78'], ['18']);
put(span(790, 792), ['12']);
put(['793', '794'], ['17']);
put(['795'], ['14']);
put(['796'], ['15']);
put(['797', '798'], ['13']);
put(['799'], ['16']);
put(['80', '84', '85'], ['10']);
put(['81', '82'], ['10', '20']);
put(['83'], ['20']);

/** The GST state codes a six-digit PIN code may belong to, or null when its prefix is not checked. */
export function pinStates(pin: string): readonly string[] | null {
  return BY_PREFIX.get(pin.slice(0, 3)) ?? BY_PREFIX.get(pin.slice(0, 2)) ?? null;
}
