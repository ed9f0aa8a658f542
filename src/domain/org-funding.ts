/** New keys are standard once the org has been funded or holds a positive balance (spec 3). */
export function orgIsFunded(org: { fundedAt: number | null; balanceMicros: number }): boolean {
  return org.fundedAt !== null || org.balanceMicros > 0;
}
