/**
 * A hold on the memory a request's payload was written in, when the caller lends it (the data
 * plane's slabs, lib/request-slabs.ts): taken while the payload may still be written, given back
 * once it cannot be; the memory is lent again only after the last hold.
 */
export interface PayloadHold {
  hold(): void;
  release(): void;
  /** release, as a write callback. */
  readonly released: () => void;
}
