;; JSON string literals written at native speed over UTF-8 bytes in this module's memory, for
;; src/lib/json-bytes.ts. `literalLength(i, n)` is the length of the literal (its quotes included)
;; for the n bytes at i; `escape(i, n, o)` writes that literal at o, ending at or before i (the
;; copy stores sixteen bytes at a time, so it may write up to fifteen bytes past what it has written
;; so far, never into the bytes it has not read). The escapes are JSON.stringify's:
;; \" \\ \b \f \n \r \t, \u00xx (lower-case hex) for the other bytes below 0x20, every other byte as
;; it is (a lone surrogate, which JSON.stringify writes as \udxxx, is left to JSON.stringify by
;; the caller). Both go sixteen bytes at a time: the length by counting the bytes that take a
;; two-byte and a six-byte escape, the copy by storing every sixteen it loads and moving on by as
;; many as are plain.
;; Built into src/lib/wasm/json-escape.ts by scripts/build-wasm.js.
(module
  (memory (export "memory") 1)
  ;; Bytes written as a two-byte escape: " \ and \b \t \n \f \r.
  (func $short (param $v v128) (result v128)
    (v128.or
      (v128.or
        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))
        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 8))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 9)))))
      (v128.or
        (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 10))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 12))))
        (i8x16.eq (local.get $v) (i8x16.splat (i32.const 13))))))
  ;; Bytes that need any escape: " \ and everything below 0x20.
  (func $special (param $v v128) (result i32)
    (i8x16.bitmask (v128.or
      (v128.or
        (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
        (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))
      (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32))))))
  ;; Bytes an escape of byte c adds: 0 (none), 1 (\" \\ \b \f \n \r \t) or 5 (\u00xx).
  (func $extra (param $c i32) (result i32)
    (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92))) (then (return (i32.const 1))))
    (if (i32.ge_u (local.get $c) (i32.const 32)) (then (return (i32.const 0))))
    (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 8)) (i32.eq (local.get $c) (i32.const 9)))
                (i32.or (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 12))) (i32.eq (local.get $c) (i32.const 13))))
      (then (return (i32.const 1))))
    (i32.const 5))
  (func $literalLength (export "literalLength") (param $i i32) (param $n i32) (result i32)
    (local $end i32) (local $len i32) (local $v v128) (local $two i32) (local $any i32)
    (local.set $end (i32.add (local.get $i) (local.get $n)))
    (local.set $len (i32.add (local.get $n) (i32.const 2)))
    (block $tail
      (loop $next
        (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load align=1 (local.get $i)))
        (local.set $any (call $special (local.get $v)))
        (if (local.get $any)
          (then
            (local.set $two (i8x16.bitmask (call $short (local.get $v))))
            ;; A two-byte escape adds 1, a six-byte one 5.
            (local.set $len (i32.add (local.get $len) (i32.add (i32.popcnt (local.get $two))
              (i32.mul (i32.popcnt (i32.xor (local.get $any) (local.get $two))) (i32.const 5)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $len (i32.add (local.get $len) (call $extra (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (local.get $len))
  (func $hexDigit (param $d i32) (result i32)
    (i32.add (local.get $d) (select (i32.const 48) (i32.const 87) (i32.lt_u (local.get $d) (i32.const 10)))))
  ;; Writes byte c, escaped if it must be, at w; returns the offset after it.
  (func $put (param $c i32) (param $w i32) (result i32)
    (local $e i32)
    (if (i32.ge_u (local.get $c) (i32.const 32))
      (then
        (if (i32.and (i32.ne (local.get $c) (i32.const 34)) (i32.ne (local.get $c) (i32.const 92)))
          (then
            (i32.store8 (local.get $w) (local.get $c))
            (return (i32.add (local.get $w) (i32.const 1)))))
        (local.set $e (local.get $c)))
      (else
        (local.set $e (i32.const 0))
        (if (i32.eq (local.get $c) (i32.const 8)) (then (local.set $e (i32.const 98))))
        (if (i32.eq (local.get $c) (i32.const 9)) (then (local.set $e (i32.const 116))))
        (if (i32.eq (local.get $c) (i32.const 10)) (then (local.set $e (i32.const 110))))
        (if (i32.eq (local.get $c) (i32.const 12)) (then (local.set $e (i32.const 102))))
        (if (i32.eq (local.get $c) (i32.const 13)) (then (local.set $e (i32.const 114))))))
    (if (local.get $e)
      (then
        (i32.store8 (local.get $w) (i32.const 92))
        (i32.store8 offset=1 (local.get $w) (local.get $e))
        (return (i32.add (local.get $w) (i32.const 2)))))
    ;; \u00xx
    (i32.store8 (local.get $w) (i32.const 92))
    (i32.store8 offset=1 (local.get $w) (i32.const 117))
    (i32.store8 offset=2 (local.get $w) (i32.const 48))
    (i32.store8 offset=3 (local.get $w) (i32.const 48))
    (i32.store8 offset=4 (local.get $w) (call $hexDigit (i32.shr_u (local.get $c) (i32.const 4))))
    (i32.store8 offset=5 (local.get $w) (call $hexDigit (i32.and (local.get $c) (i32.const 15))))
    (i32.add (local.get $w) (i32.const 6)))
;; `literal(i, n)`: the n bytes at i become their literal from i - 1 (quoted in place when nothing
  ;; needs escaping; else moved past where the literal will end, and the literal written over
  ;; them), growing the memory when it must. Returns the literal's length, negated when the
  ;; memory grew (the caller's views of it are then stale). One call where two and a copy from
  ;; JavaScript cost ~1,000 instructions more a string (bench:instructions, gateway-messages-agent).
  (func $literal (export "literal") (param $i i32) (param $n i32) (result i32)
    (local $m i32) (local $need i32) (local $grew i32) (local $have i32)
    (local.set $m (call $literalLength (local.get $i) (local.get $n)))
    (if (i32.eq (local.get $m) (i32.add (local.get $n) (i32.const 2)))
      (then
        (i32.store8 (i32.sub (local.get $i) (i32.const 1)) (i32.const 34))
        (i32.store8 (i32.add (local.get $i) (local.get $n)) (i32.const 34))
        (return (local.get $m))))
    ;; The bytes go to i - 1 + m, and stay n long there.
    (local.set $need (i32.add (i32.add (i32.sub (local.get $i) (i32.const 1)) (local.get $m)) (local.get $n)))
    (local.set $have (i32.shl (memory.size) (i32.const 16)))
    (if (i32.gt_u (local.get $need) (local.get $have))
      (then
        (if (i32.lt_s (memory.grow (i32.shr_u (i32.add (i32.sub (local.get $need) (local.get $have)) (i32.const 65535)) (i32.const 16))) (i32.const 0))
          (then (unreachable)))
        (local.set $grew (i32.const 1))))
    (memory.copy (i32.add (i32.sub (local.get $i) (i32.const 1)) (local.get $m)) (local.get $i) (local.get $n))
    (call $escape (i32.add (i32.sub (local.get $i) (i32.const 1)) (local.get $m)) (local.get $n) (i32.sub (local.get $i) (i32.const 1)))
    (select (i32.sub (i32.const 0) (local.get $m)) (local.get $m) (local.get $grew)))
  (func $escape (export "escape") (param $i i32) (param $n i32) (param $o i32)
    (local $end i32) (local $w i32) (local $v v128) (local $m i32) (local $k i32)
    (local.set $end (i32.add (local.get $i) (local.get $n)))
    (i32.store8 (local.get $o) (i32.const 34))
    (local.set $w (i32.add (local.get $o) (i32.const 1)))
    (block $done
      (loop $next
        (if (i32.le_u (i32.add (local.get $i) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load align=1 (local.get $i)))
            ;; Stored whole: the plain bytes before the first special one stay, the rest is written over next.
            (v128.store align=1 (local.get $w) (local.get $v))
            (local.set $m (call $special (local.get $v)))
            (if (i32.eqz (local.get $m))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (local.set $w (i32.add (local.get $w) (i32.const 16)))
                (br $next)))
            (local.set $k (i32.ctz (local.get $m)))
            (local.set $w (call $put (i32.load8_u (i32.add (local.get $i) (local.get $k))) (i32.add (local.get $w) (local.get $k))))
            (local.set $i (i32.add (local.get $i) (i32.add (local.get $k) (i32.const 1))))
            (br $next)))
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $w (call $put (i32.load8_u (local.get $i)) (local.get $w)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.store8 (local.get $w) (i32.const 34)))
)
