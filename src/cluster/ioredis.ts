import { Redis } from 'ioredis';

/**
 * ioredis, with String.prototype made fast again. ioredis defines `class VerbatimString extends
 * String`; V8 then keeps String.prototype in dictionary mode, and every string method call in the
 * process (the upstream response parser, the usage scanner, the JSON scanner…) goes through the
 * generic property load: +23k instructions a request on the plain pass-through path, 99.9k →
 * 123.2k on the main thread (bench:instructions, gateway). A property stored on an instance of a
 * String subclass has V8 make the prototype chain fast again; test/cluster/ioredis.test.ts checks
 * it still does.
 */
class Refast extends String {
  readonly refastMark = 0;
}
new Refast('');

export { Redis };
