import * as assert from 'uvu/assert';

/** Which walk a translation makes (lib/module-walk.ts's users export one): the module's first, and how many it made. */
export interface WalkSwitch {
  inModule: boolean;
  moduleWalks: number;
}

/**
 * `write` run with the walk in the module and then in JavaScript alone: both write the same bytes
 * or both refuse. Returns whether the module walked it, and the two results.
 */
export function bothWalks<T extends { bytes: Buffer }>(walk: WalkSwitch, write: () => T | null, label: string): { walked: boolean; inModule: T | null; inJs: T | null } {
  const walks = walk.moduleWalks;
  const inModule = write();
  const walked = walk.moduleWalks > walks;
  walk.inModule = false;
  let inJs: T | null;
  try {
    inJs = write();
  } finally {
    walk.inModule = true;
  }
  assert.is(inModule === null, inJs === null, `${label}: taken by one walk only`);
  if (inModule !== null && inJs !== null) {
    assert.ok(inModule.bytes.equals(inJs.bytes),
      `${label}: the module's walk wrote ${inModule.bytes.toString('utf8').slice(0, 300)}, JavaScript's ${inJs.bytes.toString('utf8').slice(0, 300)}`);
  }
  return { walked, inModule, inJs };
}
