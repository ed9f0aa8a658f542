;; JSON skipped at native speed, over a copy of the body in this module's memory. `skip(i, n)`
;; reads a string from offset i (just past the opening quote) to n and returns the offset just past
;; the closing quote; `value(i, n, depth, max)` reads any JSON value starting at i (no whitespace
;; before it) held at nesting `depth` (its container's), objects and arrays nesting at most `max`,
;; and returns the offset just past it. Both return -1 when what they read is not valid JSON before
;; n (a control byte in a string, a bad escape or number, too deep, unterminated). `elements` reads
;; an array of objects (a chat body's messages) and records one member of each element (its role);
;; `records` records any of a table of members of each element (a Responses body's input items).
;; Strings go thirty-two bytes at a time while none is a quote, a backslash or a byte below 0x20;
;; byte by byte around escapes. UTF-8 is checked elsewhere (node:buffer isUtf8), as JSON.parse of
;; decoded text would see it. The grammar is JSON's (RFC 8259), as src/lib/json-scan.ts had it in
;; JavaScript, which test/lib/json-scan-fuzz.test.ts holds to JSON.parse.
;; `instring` checks that a value's bytes are JSON.stringify's and counts what writing them as a
;; JSON string adds; `spans` then writes them so, among the other pieces it copies. `conversation`
;; and `items` walk a Messages conversation's and a Responses input's records and write the
;; commands `spans` copies (lib/module-walk.ts).
;; Built into src/lib/wasm/json-skip.ts by scripts/build-wasm.js.
(module
  (memory (export "memory") 1)
  (func $hex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 6))))
  ;; 1 when c follows a backslash in a two-byte escape (" \ / b f n r t): a bit of one of two
  ;; 64-bit maps, bits 34 and 47 below 64 and 92, 98, 102, 110, 114 and 116 above.
  (global $escapesLow i64 (i64.const 0x800400000000))
  (global $escapesHigh i64 (i64.const 0x14404410000000))
  (func $shortEscape (param $c i32) (result i32)
    (i32.and (i32.lt_u (local.get $c) (i32.const 128))
      (i32.wrap_i64 (i64.and (i64.const 1) (i64.shr_u
        (select (global.get $escapesHigh) (global.get $escapesLow) (i32.ge_u (local.get $c) (i32.const 64)))
        (i64.extend_i32_u (local.get $c)))))))
  (func $skip (export "skip") (param $i i32) (param $n i32) (result i32)
    (local $v v128) (local $w v128) (local $m i32) (local $c i32) (local $base i32) (local $past i32)
    (block $fail
      (loop $next
        (block $bytes
          (loop $vector
            ;; Thirty-two bytes a pass, and v < 32 as min(v, 31) = v: with sixteen, and lt_u (a max,
            ;; a compare and a negation on x64), V8's loop was 26 instructions a pass (--print-wasm-code).
            ;; With the escapes below: $skip 724k → 534k instructions over the bench's 200 KB chat
            ;; turn (callgrind, scannedBody in a loop; docs/benchmarks.md, twenty-third session).
            (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 32)) (local.get $n)))
            (local.set $v (v128.load align=1 (local.get $i)))
            (local.set $w (v128.load offset=16 align=1 (local.get $i)))
            (local.set $m (i32.or
              (i8x16.bitmask (v128.or
                (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34))) (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))
                (i8x16.eq (i8x16.min_u (local.get $v) (i8x16.splat (i32.const 31))) (local.get $v))))
              (i32.shl (i8x16.bitmask (v128.or
                (v128.or (i8x16.eq (local.get $w) (i8x16.splat (i32.const 34))) (i8x16.eq (local.get $w) (i8x16.splat (i32.const 92))))
                (i8x16.eq (i8x16.min_u (local.get $w) (i8x16.splat (i32.const 31))) (local.get $w)))) (i32.const 16))))
            (if (local.get $m)
              (then
                ;; The stops of these thirty-two bytes in turn: the closing quote, or two-byte escapes
                ;; passed over without loading the bytes again (an agent's code has one every ~40
                ;; bytes: the bench's 200 KB turn ~5,000); anything else goes byte by byte.
                (local.set $base (local.get $i))
                (loop $stop
                  (local.set $i (i32.add (local.get $base) (i32.ctz (local.get $m))))
                  (local.set $c (i32.load8_u (local.get $i)))
                  (if (i32.eq (local.get $c) (i32.const 34))
                    (then (return (i32.add (local.get $i) (i32.const 1)))))
                  (br_if $bytes (i32.ne (local.get $c) (i32.const 92)))
                  (br_if $bytes (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
                  ;; $shortEscape written out: this runs once an escape.
                  (local.set $c (i32.load8_u offset=1 (local.get $i)))
                  (br_if $bytes (i32.eqz (i32.and (i32.lt_u (local.get $c) (i32.const 128))
                    (i32.wrap_i64 (i64.and (i64.const 1) (i64.shr_u
                      (select (global.get $escapesHigh) (global.get $escapesLow) (i32.ge_u (local.get $c) (i32.const 64)))
                      (i64.extend_i32_u (local.get $c))))))))
                  ;; Past the escape; its second byte (a quote or a backslash) is a stop of its own.
                  (local.set $past (i32.sub (i32.add (local.get $i) (i32.const 2)) (local.get $base)))
                  (if (i32.ge_u (local.get $past) (i32.const 32))
                    (then
                      (local.set $i (i32.add (local.get $base) (local.get $past)))
                      (br $vector)))
                  (local.set $m (i32.and (local.get $m) (i32.shl (i32.const -1) (local.get $past))))
                  (br_if $stop (local.get $m)))
                (local.set $i (i32.add (local.get $base) (i32.const 32)))
                (br $vector)))
            (local.set $i (i32.add (local.get $i) (i32.const 32)))
            (br $vector)))
        (br_if $fail (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then (return (i32.add (local.get $i) (i32.const 1)))))
        (if (i32.eq (local.get $c) (i32.const 92))
          (then
            (br_if $fail (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (local.set $c (i32.load8_u offset=1 (local.get $i)))
            (if (i32.eq (local.get $c) (i32.const 117))
              (then
                (br_if $fail (i32.ge_u (i32.add (local.get $i) (i32.const 5)) (local.get $n)))
                (br_if $fail (i32.eqz (call $hex (i32.load8_u offset=2 (local.get $i)))))
                (br_if $fail (i32.eqz (call $hex (i32.load8_u offset=3 (local.get $i)))))
                (br_if $fail (i32.eqz (call $hex (i32.load8_u offset=4 (local.get $i)))))
                (br_if $fail (i32.eqz (call $hex (i32.load8_u offset=5 (local.get $i)))))
                ;; \u0001 and \u0002 are the characters `compact`'s placeholders are made of: noted.
                (if (i32.eq (i32.load offset=2 align=1 (local.get $i)) (i32.const 0x31303030)) (then (global.set $marked (i32.const 1))))
                (if (i32.eq (i32.load offset=2 align=1 (local.get $i)) (i32.const 0x32303030)) (then (global.set $marked (i32.const 1))))
                (local.set $i (i32.add (local.get $i) (i32.const 6)))
                (br $next)))
            (br_if $fail (i32.eqz (call $shortEscape (local.get $c))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br $next)))
        ;; Any other byte that stopped the vector is a control byte; a plain byte is passed one at a time near the end.
        (br_if $fail (i32.lt_u (local.get $c) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const -1))
  ;; Whitespace from i: the offset of the first byte that is not space, tab, LF or CR.
  (func $ws (param $i i32) (param $n i32) (result i32)
    (local $c i32)
    ;; Compact JSON first: a byte above the space ends it at once (the bench's 200 KB turn: 219k →
    ;; 90k instructions in $ws, callgrind). At n it is a byte of the room past the body (json-scan.ts
    ;; keeps its scratch there), and i is then returned either way.
    (if (i32.gt_u (i32.load8_u (local.get $i)) (i32.const 32)) (then (return (local.get $i))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $i)))
        (br_if $done (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 10)))
                                      (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 9))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))
  ;; Decimal digits from i: the offset after them (i itself when there are none).
  (func $digits (param $i i32) (param $n i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (br_if $done (i32.ge_u (i32.sub (i32.load8_u (local.get $i)) (i32.const 48)) (i32.const 10)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))
  ;; A number at i (i < n): -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  (func $number (param $i i32) (param $n i32) (result i32)
    (local $c i32) (local $j i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 45))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 48))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.ge_u (i32.sub (local.get $c) (i32.const 49)) (i32.const 9)) (then (return (i32.const -1))))
        (local.set $i (call $digits (i32.add (local.get $i) (i32.const 1)) (local.get $n)))))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 46))
          (then
            (local.set $j (call $digits (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (if (i32.eq (local.get $j) (i32.add (local.get $i) (i32.const 1))) (then (return (i32.const -1))))
            (local.set $i (local.get $j))))))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then
        (if (i32.eq (i32.or (i32.load8_u (local.get $i)) (i32.const 32)) (i32.const 101))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.lt_u (local.get $i) (local.get $n))
              (then
                (local.set $c (i32.load8_u (local.get $i)))
                (if (i32.or (i32.eq (local.get $c) (i32.const 43)) (i32.eq (local.get $c) (i32.const 45)))
                  (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))))
            (local.set $j (call $digits (local.get $i) (local.get $n)))
            (if (i32.eq (local.get $j) (local.get $i)) (then (return (i32.const -1))))
            (local.set $i (local.get $j))))))
    (local.get $i))
  ;; A four-byte literal (true, null) at i, given as its bytes read little-endian.
  (func $word (param $i i32) (param $n i32) (param $w i32) (result i32)
    (if (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load align=1 (local.get $i)) (local.get $w)) (then (return (i32.const -1))))
    (i32.add (local.get $i) (i32.const 4)))
  (func $value (export "value") (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32)
    (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 34)) (then (return (call $skip (i32.add (local.get $i) (i32.const 1)) (local.get $n)))))
    (if (i32.eq (local.get $c) (i32.const 123))
      (then (return (call $object (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))))
    (if (i32.eq (local.get $c) (i32.const 91))
      (then (return (call $array (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))))
    ;; "true", "null" as little-endian words; "false" as "fals" then "e".
    (if (i32.eq (local.get $c) (i32.const 116)) (then (return (call $word (local.get $i) (local.get $n) (i32.const 0x65757274)))))
    (if (i32.eq (local.get $c) (i32.const 110)) (then (return (call $word (local.get $i) (local.get $n) (i32.const 0x6c6c756e)))))
    (if (i32.eq (local.get $c) (i32.const 102))
      (then
        (if (i32.gt_u (i32.add (local.get $i) (i32.const 5)) (local.get $n)) (then (return (i32.const -1))))
        (if (i32.ne (i32.load8_u offset=4 (local.get $i)) (i32.const 101)) (then (return (i32.const -1))))
        (if (i32.ne (i32.load align=1 (local.get $i)) (i32.const 0x736c6166)) (then (return (i32.const -1))))
        (return (i32.add (local.get $i) (i32.const 5)))))
    (call $number (local.get $i) (local.get $n)))
  ;; An object at i (its brace), nesting at `depth`.
  (func $object (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 125)) (then (return (i32.add (local.get $i) (i32.const 1)))))))
    (loop $member
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
      (local.set $i (call $skip (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 58)) (then (return (i32.const -1))))
      (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
      (local.set $i (call $value (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 125)) (then (return (local.get $i))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (br $member))
    (i32.const -1))
;; `elements(i, n, key, keyLength, key2, key2Length, key3, key3Length, out, cap, depth, max)`: the
  ;; array at i (its bracket) at nesting `depth`, its elements there too and their members one
  ;; deeper. For each element it writes four i32 at out + 4 + 16k: the start and end of the value
  ;; of its member named by the keyLength bytes at `key`, then of the one named by the key2Length
  ;; bytes at key2 (none when key2Length is 0), each -1 and -1 when the element is not an object or
  ;; has no such member; the number of elements goes to out. With key3, a key2 value that is an
  ;; array must hold objects that each have a non-empty string member named by key3 (a Messages
  ;; body's content blocks and their `type`), checked on the way. Returns the offset past the
  ;; array, -1 when it is not valid JSON (or too deep, or an element names a key twice, or fails
  ;; the key3 check), and -2 when JavaScript must decide: a member name written with an escape (it
  ;; might spell a key), or more than `cap` elements.
  (func $elements (export "elements") (param $i i32) (param $n i32) (param $key i32) (param $klen i32) (param $key2 i32) (param $klen2 i32)
    (param $key3 i32) (param $klen3 i32) (param $out i32) (param $cap i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32) (local $count i32) (local $k i32) (local $e i32) (local $j i32) (local $m1 i32) (local $m2 i32)
    (local $s1 i32) (local $e1 i32) (local $s2 i32) (local $e2 i32) (local $at i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (block $closed
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 93)) (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $closed)))))
      (loop $element
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
        (if (i32.ge_u (local.get $count) (local.get $cap)) (then (return (i32.const -2))))
        (local.set $s1 (i32.const -1))
        (local.set $e1 (i32.const -1))
        (local.set $s2 (i32.const -1))
        (local.set $e2 (i32.const -1))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 123))
          (then
            (if (i32.gt_s (i32.add (local.get $depth) (i32.const 1)) (local.get $max)) (then (return (i32.const -1))))
            (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (block $object
              (if (i32.lt_u (local.get $i) (local.get $n))
                (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 125)) (then
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br $object)))))
              (loop $member
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
                (local.set $k (i32.add (local.get $i) (i32.const 1)))
                (local.set $e (call $skip (local.get $k) (local.get $n)))
                (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
                ;; The name is [k, e - 1); an escape in it is JavaScript's to judge.
                (local.set $m1 (call $name (local.get $k) (i32.sub (local.get $e) (i32.const 1)) (local.get $key) (local.get $klen)
                  (local.get $key2) (local.get $klen2)))
                (if (i32.and (local.get $m1) (i32.const 4)) (then (return (i32.const -2))))
                (local.set $m2 (i32.and (local.get $m1) (i32.const 2)))
                (local.set $m1 (i32.and (local.get $m1) (i32.const 1)))
                (local.set $i (call $ws (local.get $e) (local.get $n)))
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 58)) (then (return (i32.const -1))))
                (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
                (local.set $j (local.get $i))
                (if (i32.and (i32.and (i32.ne (local.get $m2) (i32.const 0)) (i32.ne (local.get $klen3) (i32.const 0)))
                      (i32.and (i32.lt_u (local.get $i) (local.get $n)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 91))))
                  (then
                    (local.set $i (call $typed (local.get $i) (local.get $n) (local.get $key3) (local.get $klen3)
                      (i32.add (local.get $depth) (i32.const 2)) (local.get $max)))
                    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (local.get $i)))))
                  (else
                    (local.set $i (call $value (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))
                    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
                (if (local.get $m1)
                  (then
                    (if (i32.ge_s (local.get $s1) (i32.const 0)) (then (return (i32.const -1))))
                    (local.set $s1 (local.get $j))
                    (local.set $e1 (local.get $i))))
                (if (local.get $m2)
                  (then
                    (if (i32.ge_s (local.get $s2) (i32.const 0)) (then (return (i32.const -1))))
                    (local.set $s2 (local.get $j))
                    (local.set $e2 (local.get $i))))
                (local.set $i (call $ws (local.get $i) (local.get $n)))
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (local.set $c (i32.load8_u (local.get $i)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $object (i32.eq (local.get $c) (i32.const 125)))
                (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
                (local.set $i (call $ws (local.get $i) (local.get $n)))
                (br $member))))
          (else
            (local.set $i (call $value (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
            (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
        (local.set $at (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 4))))
        (i32.store offset=4 (local.get $at) (local.get $s1))
        (i32.store offset=8 (local.get $at) (local.get $e1))
        (i32.store offset=12 (local.get $at) (local.get $s2))
        (i32.store offset=16 (local.get $at) (local.get $e2))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (local.set $i (call $ws (local.get $i) (local.get $n)))
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $closed (i32.eq (local.get $c) (i32.const 93)))
        (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
        (local.set $i (call $ws (local.get $i) (local.get $n)))
        (br $element)))
    (i32.store (local.get $out) (local.get $count))
    (local.get $i))
  ;; `plain(at, count)`: 1 when each of `count` records of `elements` from `at` (four i32 each) has
  ;; a first member that is a string of one byte or more (a chat body's roles: the scan checked its
  ;; escapes, so it is not empty decoded either), 0 when one has not (src/dataplane/scanned-body.ts).
  (func $plain (export "plain") (param $at i32) (param $count i32) (result i32)
    (local $end i32) (local $s i32)
    (local.set $end (i32.add (local.get $at) (i32.shl (local.get $count) (i32.const 4))))
    (block $no
      (loop $next
        (if (i32.ge_u (local.get $at) (local.get $end)) (then (return (i32.const 1))))
        (local.set $s (i32.load (local.get $at)))
        (br_if $no (i32.lt_s (local.get $s) (i32.const 0)))
        (br_if $no (i32.ne (i32.load8_u (local.get $s)) (i32.const 34)))
        (br_if $no (i32.le_s (i32.sub (i32.load offset=4 (local.get $at)) (local.get $s)) (i32.const 2)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $next)))
    (i32.const 0))
  ;; `nest(key, keys, count, out, end)`: the next `records` call also records the elements of the
  ;; arrays that member `key` of its elements holds (a Messages body's blocks; the array at nesting
  ;; depth + 2, inside its element), by the table of
  ;; `count` keys at `keys`, one array after another from `out` (its count, then its records) up to
  ;; `end`; each outer record then has one more i32, where its array's records are (-1 when the
  ;; member is absent or not an array). `key` -1: no nesting.
  (global $nkey (mut i32) (i32.const -1))
  (global $nkeys (mut i32) (i32.const 0))
  (global $ncount (mut i32) (i32.const 0))
  (global $nw (mut i32) (i32.const 0))
  (global $nend (mut i32) (i32.const 0))
  (func $nest (export "nest") (param $key i32) (param $keys i32) (param $count i32) (param $out i32) (param $end i32)
    (global.set $nkey (local.get $key))
    (global.set $nkeys (local.get $keys))
    (global.set $ncount (local.get $count))
    (global.set $nw (local.get $out))
    (global.set $nend (local.get $end)))
  ;; `records(i, n, keys, count, out, cap, depth, max)`: the array at i (its bracket) at nesting
  ;; `depth`, its elements there too and their members one deeper, with the members of each
  ;; element named by a table of `count` keys: key k's name at keys + 32k (sixteen bytes, zeros
  ;; after it) and its length at keys + 32k + 16. For element e it writes 1 + 2 * count i32 at
  ;; out + 4 + 4 * (1 + 2 * count) * e: the element's first byte, then per key the start and end of
  ;; that member's value (-1 and -1 when absent; a name given twice counts its last value, as
  ;; JSON.parse has it); the number of elements goes to out. Returns the offset past the array, -1
  ;; when it is not valid JSON (or too deep), -2 when JavaScript must decide: a member name written
  ;; with an escape (it might spell a key), or more than `cap` elements.
  (func $records (export "records") (param $i i32) (param $n i32) (param $keys i32) (param $count i32) (param $out i32) (param $cap i32)
    (param $depth i32) (param $max i32) (result i32)
    (local $c i32) (local $elements i32) (local $k i32) (local $e i32) (local $j i32) (local $at i32) (local $w i32)
    (local $len i32) (local $v v128) (local $all i32) (local $match i32) (local $stride i32) (local $nk i32) (local $r i32) (local $nstride i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    ;; $ws is called only where a byte at most a space follows: four calls a member were ~100k
    ;; instructions over the bench's Messages turn, its conversation and blocks; with the check
    ;; written out here, $records and $ws 373k → 271k (Responses: 329k → ~240k; callgrind, the
    ;; translations in a loop). Written out in every function, the chat scan gained only ~10k.
    ;; Nesting is read once: the nested call runs with it off.
    (local.set $nk (global.get $nkey))
    (local.set $stride (i32.shl (i32.add (i32.add (i32.shl (local.get $count) (i32.const 1)) (i32.const 1))
      (i32.ge_s (local.get $nk) (i32.const 0))) (i32.const 2)))
    (local.set $nstride (i32.shl (i32.add (i32.shl (global.get $ncount) (i32.const 1)) (i32.const 1)) (i32.const 2)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
      (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
    (block $closed
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 93)) (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $closed)))))
      (loop $element
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
        (if (i32.ge_u (local.get $elements) (local.get $cap)) (then (return (i32.const -2))))
        ;; The element's record: its first byte, then every span absent.
        (local.set $at (i32.add (i32.add (local.get $out) (i32.const 4)) (i32.mul (local.get $elements) (local.get $stride))))
        (i32.store (local.get $at) (local.get $i))
        (local.set $j (i32.const 0))
        (block $cleared
          (loop $clear
            (br_if $cleared (i32.ge_u (local.get $j) (local.get $count)))
            (i64.store offset=4 align=4 (i32.add (local.get $at) (i32.shl (local.get $j) (i32.const 3))) (i64.const -1))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $clear)))
        (if (i32.ge_s (local.get $nk) (i32.const 0))
          (then (i32.store offset=4 (i32.add (local.get $at) (i32.shl (local.get $count) (i32.const 3))) (i32.const -1))))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 123))
          (then
            (if (i32.gt_s (i32.add (local.get $depth) (i32.const 1)) (local.get $max)) (then (return (i32.const -1))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
              (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
            (block $object
              (if (i32.lt_u (local.get $i) (local.get $n))
                (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 125)) (then
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (br $object)))))
              (loop $member
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
                (local.set $k (i32.add (local.get $i) (i32.const 1)))
                (local.set $e (call $skip (local.get $k) (local.get $n)))
                (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
                ;; The name is [k, e - 1): matched against the table sixteen bytes at a time (names are short).
                (local.set $len (i32.sub (i32.sub (local.get $e) (i32.const 1)) (local.get $k)))
                (local.set $match (i32.const -1))
                (if (i32.le_u (local.get $len) (i32.const 16))
                  (then
                    (local.set $v (v128.load align=1 (local.get $k)))
                    (local.set $all (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1)))
                    (if (i32.and (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92)))) (local.get $all)) (then (return (i32.const -2))))
                    (local.set $j (i32.const 0))
                    (block $found
                      (loop $key
                        (br_if $found (i32.ge_u (local.get $j) (local.get $count)))
                        (local.set $w (i32.add (local.get $keys) (i32.shl (local.get $j) (i32.const 5))))
                        (if (i32.eq (i32.load offset=16 (local.get $w)) (local.get $len))
                          (then (if (i32.eq (i32.and (i8x16.bitmask (i8x16.eq (local.get $v) (v128.load (local.get $w)))) (local.get $all)) (local.get $all))
                            (then
                              (local.set $match (local.get $j))
                              (br $found)))))
                        (local.set $j (i32.add (local.get $j) (i32.const 1)))
                        (br $key))))
                  (else
                    ;; Longer than any key: only an escape in it matters.
                    (local.set $j (local.get $k))
                    (block $plain
                      (loop $byte
                        (br_if $plain (i32.ge_u (local.get $j) (i32.sub (local.get $e) (i32.const 1))))
                        (if (i32.eq (i32.load8_u (local.get $j)) (i32.const 92)) (then (return (i32.const -2))))
                        (local.set $j (i32.add (local.get $j) (i32.const 1)))
                        (br $byte)))))
                (local.set $i (local.get $e))
                (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
                  (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 58)) (then (return (i32.const -1))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
                  (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
                (local.set $j (local.get $i))
                (if (i32.and (i32.and (i32.ge_s (local.get $nk) (i32.const 0)) (i32.eq (local.get $match) (local.get $nk)))
                      (i32.and (i32.lt_u (local.get $i) (local.get $n)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 91))))
                  (then
                    ;; The nested array's records go where the last one's ended; room left, or JavaScript decides.
                    (local.set $r (global.get $nw))
                    (if (i32.lt_s (i32.sub (global.get $nend) (local.get $r)) (i32.const 4)) (then (return (i32.const -2))))
                    (global.set $nkey (i32.const -1))
                    (local.set $i (call $records (local.get $i) (local.get $n) (global.get $nkeys) (global.get $ncount) (local.get $r)
                      (i32.div_s (i32.sub (i32.sub (global.get $nend) (local.get $r)) (i32.const 4)) (local.get $nstride))
                      (i32.add (local.get $depth) (i32.const 2)) (local.get $max)))
                    (global.set $nkey (local.get $nk))
                    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (local.get $i))))
                    (i32.store offset=4 (i32.add (local.get $at) (i32.shl (local.get $count) (i32.const 3))) (local.get $r))
                    (global.set $nw (i32.add (local.get $r) (i32.add (i32.const 4) (i32.mul (i32.load (local.get $r)) (local.get $nstride))))))
                  (else
                    (local.set $i (call $value (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))
                    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
                (if (i32.ge_s (local.get $match) (i32.const 0))
                  (then
                    (i32.store offset=4 (i32.add (local.get $at) (i32.shl (local.get $match) (i32.const 3))) (local.get $j))
                    (i32.store offset=8 (i32.add (local.get $at) (i32.shl (local.get $match) (i32.const 3))) (local.get $i))))
                (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
                  (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
                (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
                (local.set $c (i32.load8_u (local.get $i)))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $object (i32.eq (local.get $c) (i32.const 125)))
                (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
                (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
                  (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
                (br $member))))
          (else
            (local.set $i (call $value (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
            (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
        (local.set $elements (i32.add (local.get $elements) (i32.const 1)))
        (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
          (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
        (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $closed (i32.eq (local.get $c) (i32.const 93)))
        (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
        (if (i32.le_u (i32.load8_u (local.get $i)) (i32.const 32))
          (then (local.set $i (call $ws (local.get $i) (local.get $n)))))
        (br $element)))
    (i32.store (local.get $out) (local.get $elements))
    (local.get $i))
  ;; The array at i (its bracket, at nesting `depth`) of objects that each have a non-empty string
  ;; member named by the klen bytes at key: the offset past it, -1 when it is not valid JSON or not
  ;; such an array, -2 when a member name has an escape (JavaScript decides).
  (func $typed (param $i i32) (param $n i32) (param $key i32) (param $klen i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32) (local $k i32) (local $e i32) (local $r i32) (local $found i32) (local $vs i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 93)) (then (return (i32.add (local.get $i) (i32.const 1)))))))
    (loop $element
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 123)) (then (return (i32.const -1))))
      (if (i32.gt_s (i32.add (local.get $depth) (i32.const 1)) (local.get $max)) (then (return (i32.const -1))))
      (local.set $found (i32.const 0))
      (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      ;; An empty object has no such member.
      (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 125)) (then (return (i32.const -1))))
      (block $object
        (loop $member
          (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
          (local.set $k (i32.add (local.get $i) (i32.const 1)))
          (local.set $e (call $skip (local.get $k) (local.get $n)))
          (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
          (local.set $r (call $name (local.get $k) (i32.sub (local.get $e) (i32.const 1)) (local.get $key) (local.get $klen) (local.get $key) (i32.const 0)))
          (if (i32.and (local.get $r) (i32.const 4)) (then (return (i32.const -2))))
          (local.set $i (call $ws (local.get $e) (local.get $n)))
          (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 58)) (then (return (i32.const -1))))
          (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
          (if (local.get $r)
            (then
              ;; The key's value: a string of at least one character, given once.
              (if (local.get $found) (then (return (i32.const -1))))
              (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
              (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
              (local.set $vs (local.get $i))
              (local.set $i (call $skip (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
              (if (i32.le_u (i32.sub (local.get $i) (local.get $vs)) (i32.const 2)) (then (return (i32.const -1))))
              (local.set $found (i32.const 1)))
            (else
              (local.set $i (call $value (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
          (local.set $i (call $ws (local.get $i) (local.get $n)))
          (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u (local.get $i)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $object (i32.eq (local.get $c) (i32.const 125)))
          (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
          (local.set $i (call $ws (local.get $i) (local.get $n)))
          (br $member)))
      (if (i32.eqz (local.get $found)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 93)) (then (return (local.get $i))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (br $element))
    (i32.const -1))
  ;; The member name [k, e) against the two keys, in one pass: 1 when it is the first, 2 the
  ;; second (none when klen2 is 0), 4 when it holds a backslash.
  (func $name (param $k i32) (param $e i32) (param $key i32) (param $klen i32) (param $key2 i32) (param $klen2 i32) (result i32)
    (local $j i32) (local $c i32) (local $r i32) (local $len i32) (local $v v128) (local $all i32)
    (local.set $len (i32.sub (local.get $e) (local.get $k)))
    ;; A name of up to sixteen bytes (nearly all) in one load: the bytes after it, in the body or
    ;; the scratch room past it, are masked off.
    (if (i32.le_u (local.get $len) (i32.const 16))
      (then
        (local.set $v (v128.load align=1 (local.get $k)))
        (local.set $all (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1)))
        (if (i32.and (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92)))) (local.get $all)) (then (return (i32.const 4))))
        (if (i32.eq (local.get $len) (local.get $klen))
          (then (if (i32.eq (i32.and (i8x16.bitmask (i8x16.eq (local.get $v) (v128.load align=1 (local.get $key)))) (local.get $all)) (local.get $all))
            (then (local.set $r (i32.const 1))))))
        (if (i32.and (i32.ne (local.get $klen2) (i32.const 0)) (i32.eq (local.get $len) (local.get $klen2)))
          (then (if (i32.eq (i32.and (i8x16.bitmask (i8x16.eq (local.get $v) (v128.load align=1 (local.get $key2)))) (local.get $all)) (local.get $all))
            (then (local.set $r (i32.or (local.get $r) (i32.const 2)))))))
        (return (local.get $r))))
    (if (i32.eq (i32.sub (local.get $e) (local.get $k)) (local.get $klen)) (then (local.set $r (i32.const 1))))
    (if (i32.and (i32.ne (local.get $klen2) (i32.const 0)) (i32.eq (i32.sub (local.get $e) (local.get $k)) (local.get $klen2)))
      (then (local.set $r (i32.or (local.get $r) (i32.const 2)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (i32.add (local.get $k) (local.get $j)) (local.get $e)))
        (local.set $c (i32.load8_u (i32.add (local.get $k) (local.get $j))))
        (if (i32.eq (local.get $c) (i32.const 92)) (then (return (i32.const 4))))
        (if (i32.and (local.get $r) (i32.const 1))
          (then (if (i32.ne (local.get $c) (i32.load8_u (i32.add (local.get $key) (local.get $j))))
            (then (local.set $r (i32.and (local.get $r) (i32.const 6)))))))
        (if (i32.and (local.get $r) (i32.const 2))
          (then (if (i32.ne (local.get $c) (i32.load8_u (i32.add (local.get $key2) (local.get $j))))
            (then (local.set $r (i32.and (local.get $r) (i32.const 5)))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (local.get $r))
  ;; An array at i (its bracket), nesting at `depth`.
  (func $array (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 93)) (then (return (i32.add (local.get $i) (i32.const 1)))))))
    (loop $element
      (local.set $i (call $value (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 93)) (then (return (local.get $i))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (br $element))
    (i32.const -1))
  ;; `compact(i, n, o, min, table, cap, depth, max)`: the JSON value at i (nesting `depth`) copied
  ;; to o, each string value (an array's element or an object member's value, never a key) at least
  ;; `min` bytes long, quotes included, replaced by a placeholder: a quote, \u0001 (escaped), the
  ;; string's index in decimal, \u0002 (escaped), a quote: ASCII, so that the text it is part of
  ;; stays one byte a character in V8 (JSON.parse of text holding U+E000, an earlier marker, took
  ;; twice as long). The string's start and end go to table + 4 + 8k, and their number to table.
  ;; Returns the length written: at most the value's, as a placeholder is shorter than what it
  ;; replaces; -1 when the value is not valid JSON or nests past `max`, -2 when more than `cap`
  ;; strings are long, -3 when a string of the value holds \u0001 or \u0002 itself (it could be
  ;; taken for a placeholder). lib/json-literals.ts reads the result.
  (global $w (mut i32) (i32.const 0))
  (global $from (mut i32) (i32.const 0))
  (global $count (mut i32) (i32.const 0))
  (global $table (mut i32) (i32.const 0))
  (global $cap (mut i32) (i32.const 0))
  (global $min (mut i32) (i32.const 0))
  (global $marked (mut i32) (i32.const 0))
  (func $compact (export "compact") (param $i i32) (param $n i32) (param $o i32) (param $min i32) (param $table i32) (param $cap i32)
    (param $depth i32) (param $max i32) (result i32)
    (local $e i32)
    (global.set $w (local.get $o))
    (global.set $from (local.get $i))
    (global.set $count (i32.const 0))
    (global.set $table (local.get $table))
    (global.set $cap (local.get $cap))
    (global.set $min (local.get $min))
    (global.set $marked (i32.const 0))
    (local.set $e (call $cvalue (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
    (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (local.get $e))))
    (if (global.get $marked) (then (return (i32.const -3))))
    (call $flush (local.get $e))
    (i32.store (local.get $table) (global.get $count))
    (i32.sub (global.get $w) (local.get $o)))
  ;; Copies the input from $from up to `to` to the output.
  (func $flush (param $to i32)
    (memory.copy (global.get $w) (global.get $from) (i32.sub (local.get $to) (global.get $from)))
    (global.set $w (i32.add (global.get $w) (i32.sub (local.get $to) (global.get $from))))
    (global.set $from (local.get $to)))
  ;; The long string [s, e) becomes its placeholder; false when the table is full.
  (func $emit (param $s i32) (param $e i32) (result i32)
    (local $k i32) (local $digits i32) (local $at i32)
    (if (i32.ge_u (global.get $count) (global.get $cap)) (then (return (i32.const 0))))
    (call $flush (local.get $s))
    (i32.store offset=4 (i32.add (global.get $table) (i32.shl (global.get $count) (i32.const 3))) (local.get $s))
    (i32.store offset=8 (i32.add (global.get $table) (i32.shl (global.get $count) (i32.const 3))) (local.get $e))
    ;; "\u0001
    (i32.store8 (global.get $w) (i32.const 34))
    (i32.store offset=1 align=1 (global.get $w) (i32.const 0x3030755c))
    (i32.store16 offset=5 align=1 (global.get $w) (i32.const 0x3130))
    ;; The index's digits, most significant first.
    (local.set $k (global.get $count))
    (local.set $digits (i32.const 1))
    (block $counted
      (loop $more
        (br_if $counted (i32.lt_u (local.get $k) (i32.const 10)))
        (local.set $k (i32.div_u (local.get $k) (i32.const 10)))
        (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
        (br $more)))
    (local.set $k (global.get $count))
    (local.set $at (i32.add (global.get $w) (i32.add (i32.const 6) (local.get $digits))))
    (loop $digit
      (i32.store8 (local.get $at) (i32.add (i32.const 48) (i32.rem_u (local.get $k) (i32.const 10))))
      (local.set $k (i32.div_u (local.get $k) (i32.const 10)))
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (br_if $digit (local.get $k)))
    ;; \u0002"
    (local.set $at (i32.add (global.get $w) (i32.add (i32.const 7) (local.get $digits))))
    (i32.store align=1 (local.get $at) (i32.const 0x3030755c))
    (i32.store16 offset=4 align=1 (local.get $at) (i32.const 0x3230))
    (i32.store8 offset=6 (local.get $at) (i32.const 34))
    (global.set $w (i32.add (local.get $at) (i32.const 7)))
    (global.set $from (local.get $e))
    (global.set $count (i32.add (global.get $count) (i32.const 1)))
    (i32.const 1))
  ;; A value at i, in a container at nesting `depth`: as $value, long strings made placeholders.
  (func $cvalue (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32) (local $e i32)
    (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 34))
      (then
        (local.set $e (call $skip (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
        (if (i32.lt_s (local.get $e) (i32.const 0)) (then (return (i32.const -1))))
        (if (i32.ge_u (i32.sub (local.get $e) (local.get $i)) (global.get $min))
          (then (if (i32.eqz (call $emit (local.get $i) (local.get $e))) (then (return (i32.const -2))))))
        (return (local.get $e))))
    (if (i32.eq (local.get $c) (i32.const 123))
      (then (return (call $cobject (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))))
    (if (i32.eq (local.get $c) (i32.const 91))
      (then (return (call $carray (local.get $i) (local.get $n) (i32.add (local.get $depth) (i32.const 1)) (local.get $max)))))
    (call $value (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
  (func $cobject (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 125)) (then (return (i32.add (local.get $i) (i32.const 1)))))))
    (loop $member
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
      (local.set $i (call $skip (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 58)) (then (return (i32.const -1))))
      (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
      (local.set $i (call $cvalue (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (local.get $i))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 125)) (then (return (local.get $i))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (br $member))
    (i32.const -1))
  (func $carray (param $i i32) (param $n i32) (param $depth i32) (param $max i32) (result i32)
    (local $c i32)
    (if (i32.gt_s (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
    (local.set $i (call $ws (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
    (if (i32.lt_u (local.get $i) (local.get $n))
      (then (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 93)) (then (return (i32.add (local.get $i) (i32.const 1)))))))
    (loop $element
      (local.set $i (call $cvalue (local.get $i) (local.get $n) (local.get $depth) (local.get $max)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (local.get $i))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (if (i32.ge_u (local.get $i) (local.get $n)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (if (i32.eq (local.get $c) (i32.const 93)) (then (return (local.get $i))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -1))))
      (local.set $i (call $ws (local.get $i) (local.get $n)))
      (br $element))
    (i32.const -1))
  ;; A writer's pieces (lib/span-writer.ts) copied in order from [$cmds, $end) to $out, which
  ;; is returned advanced past them. A word below zero is a piece of the constants and computed
  ;; bytes at $consts: ~word packs its offset (<< 8) and its length (1 to 255), or a length of 0
  ;; when the length is the next word; any other word is a span of the body, its start, then its
  ;; length in the next word. Nothing here overlaps: the body, the table, the words and
  ;; the output each have their own part of the memory. Short pieces move in 16- and 8-byte words
  ;; (overlapping at the tail), long ones by memory.copy.
  ;; Whether the JSON value at [i, to) (valid JSON, from a scanned body) is spelled as
  ;; JSON.stringify(JSON.parse(it)) would spell it, for writing it as a JSON string as it stands
  ;; (lib/json-in-string.ts has the rules, in JavaScript): the bytes that adds (a backslash before
  ;; each quote and backslash, the two quotes around), -1 when it is not so spelled (whitespace, an
  ;; escape JSON.stringify writes otherwise, a key given twice or that is an array index), -2 when
  ;; left to JavaScript (a number other than a short whole one; nesting or keys past the room at
  ;; $stack: 8 bytes a container from $stack, 8 bytes a key from $stack + 1024, at most $cap keys).
  (func $instring (export "instring") (param $i i32) (param $to i32) (param $stack i32) (param $cap i32) (result i32)
    (local $c i32) (local $e i32) (local $j i32) (local $k i32) (local $m i32) (local $extra i32)
    (local $open i32) (local $keys i32) (local $expectKey i32) (local $keysAt i32) (local $len i32) (local $plain i32)
    (local.set $keysAt (i32.add (local.get $stack) (i32.const 1024)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            ;; A string: sixteen bytes at a time while none is a quote or a backslash.
            (local.set $j (i32.add (local.get $i) (i32.const 1)))
            (block $closed
              (loop $str
                (if (i32.le_u (i32.add (local.get $j) (i32.const 16)) (local.get $to))
                  (then
                    (local.set $m (i8x16.bitmask (v128.or
                      (i8x16.eq (v128.load (local.get $j)) (i8x16.splat (i32.const 34)))
                      (i8x16.eq (v128.load (local.get $j)) (i8x16.splat (i32.const 92))))))
                    (if (i32.eqz (local.get $m))
                      (then (local.set $j (i32.add (local.get $j) (i32.const 16))) (br $str)))
                    (local.set $j (i32.add (local.get $j) (i32.ctz (local.get $m))))))
                (if (i32.ge_u (local.get $j) (local.get $to)) (then (return (i32.const -1))))
                (local.set $e (i32.load8_u (local.get $j)))
                (if (i32.eq (local.get $e) (i32.const 34))
                  (then (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $closed)))
                (if (i32.ne (local.get $e) (i32.const 92))
                  (then (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $str)))
                (local.set $extra (i32.add (local.get $extra) (i32.const 1)))
                (local.set $e (i32.load8_u offset=1 (local.get $j)))
                ;; \" and \\ take one more backslash each; \b \f \n \r \t none.
                (if (i32.or (i32.eq (local.get $e) (i32.const 34)) (i32.eq (local.get $e) (i32.const 92)))
                  (then
                    (local.set $extra (i32.add (local.get $extra) (i32.const 1)))
                    (local.set $j (i32.add (local.get $j) (i32.const 2)))
                    (br $str)))
                (if (i32.or
                      (i32.or (i32.eq (local.get $e) (i32.const 98)) (i32.eq (local.get $e) (i32.const 102)))
                      (i32.or (i32.or (i32.eq (local.get $e) (i32.const 110)) (i32.eq (local.get $e) (i32.const 114))) (i32.eq (local.get $e) (i32.const 116))))
                  (then (local.set $j (i32.add (local.get $j) (i32.const 2))) (br $str)))
                ;; Otherwise only \u00xx in lower-case hex, for a control byte without a short escape.
                (if (i32.or
                      (i32.or (i32.ne (local.get $e) (i32.const 117)) (i32.ne (i32.load8_u offset=2 (local.get $j)) (i32.const 48)))
                      (i32.or (i32.ne (i32.load8_u offset=3 (local.get $j)) (i32.const 48))
                              (i32.gt_u (i32.sub (i32.load8_u offset=4 (local.get $j)) (i32.const 48)) (i32.const 1))))
                  (then (return (i32.const -1))))
                (local.set $e (i32.load8_u offset=5 (local.get $j)))
                (if (i32.lt_u (i32.sub (local.get $e) (i32.const 48)) (i32.const 10))
                  (then (local.set $e (i32.sub (local.get $e) (i32.const 48))))
                  (else
                    (if (i32.lt_u (i32.sub (local.get $e) (i32.const 97)) (i32.const 6))
                      (then (local.set $e (i32.sub (local.get $e) (i32.const 87))))
                      (else (return (i32.const -1))))))
                (local.set $e (i32.add (local.get $e) (i32.shl (i32.sub (i32.load8_u offset=4 (local.get $j)) (i32.const 48)) (i32.const 4))))
                (if (i32.or
                      (i32.or (i32.eq (local.get $e) (i32.const 8)) (i32.eq (local.get $e) (i32.const 9)))
                      (i32.or (i32.or (i32.eq (local.get $e) (i32.const 10)) (i32.eq (local.get $e) (i32.const 12))) (i32.eq (local.get $e) (i32.const 13))))
                  (then (return (i32.const -1))))
                (local.set $j (i32.add (local.get $j) (i32.const 6)))
                (br $str)))
            (local.set $extra (i32.add (local.get $extra) (i32.const 2)))
            (if (local.get $expectKey)
              (then
                ;; A key of digits only may be an array index, which V8 would order first.
                (if (i32.lt_u (i32.sub (i32.load8_u offset=1 (local.get $i)) (i32.const 48)) (i32.const 10))
                  (then
                    (local.set $k (i32.add (local.get $i) (i32.const 1)))
                    (block $other
                      (loop $digit
                        (if (i32.ge_u (local.get $k) (i32.sub (local.get $j) (i32.const 1))) (then (return (i32.const -1))))
                        (br_if $other (i32.ge_u (i32.sub (i32.load8_u (local.get $k)) (i32.const 48)) (i32.const 10)))
                        (local.set $k (i32.add (local.get $k) (i32.const 1)))
                        (br $digit)))))
                ;; A key given twice in its object: the same bytes, as no key here has another spelling.
                (local.set $len (i32.sub (local.get $j) (local.get $i)))
                (local.set $k (i32.load offset=4 (i32.add (local.get $stack) (i32.shl (i32.sub (local.get $open) (i32.const 1)) (i32.const 3)))))
                (block $new
                  (loop $key
                    (br_if $new (i32.ge_u (local.get $k) (local.get $keys)))
                    (local.set $m (i32.add (local.get $keysAt) (i32.shl (local.get $k) (i32.const 3))))
                    (if (i32.eq (i32.sub (i32.load offset=4 (local.get $m)) (i32.load (local.get $m))) (local.get $len))
                      (then
                        (local.set $m (i32.load (local.get $m)))
                        (local.set $e (i32.const 0))
                        (block $differ
                          (loop $byte
                            (if (i32.ge_u (local.get $e) (local.get $len)) (then (return (i32.const -1))))
                            (br_if $differ (i32.ne (i32.load8_u (i32.add (local.get $m) (local.get $e)))
                                                   (i32.load8_u (i32.add (local.get $i) (local.get $e)))))
                            (local.set $e (i32.add (local.get $e) (i32.const 1)))
                            (br $byte)))))
                    (local.set $k (i32.add (local.get $k) (i32.const 1)))
                    (br $key)))
                (if (i32.ge_u (local.get $keys) (local.get $cap)) (then (return (i32.const -2))))
                (local.set $m (i32.add (local.get $keysAt) (i32.shl (local.get $keys) (i32.const 3))))
                (i32.store (local.get $m) (local.get $i))
                (i32.store offset=4 (local.get $m) (local.get $j))
                (local.set $keys (i32.add (local.get $keys) (i32.const 1)))
                (local.set $expectKey (i32.const 0))))
            (local.set $i (local.get $j))
            (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
          (then
            (if (i32.ge_u (local.get $open) (i32.const 128)) (then (return (i32.const -2))))
            (local.set $m (i32.add (local.get $stack) (i32.shl (local.get $open) (i32.const 3))))
            (local.set $expectKey (i32.eq (local.get $c) (i32.const 123)))
            (i32.store (local.get $m) (local.get $expectKey))
            (i32.store offset=4 (local.get $m) (local.get $keys))
            (local.set $open (i32.add (local.get $open) (i32.const 1)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 125)) (i32.eq (local.get $c) (i32.const 93)))
          (then
            (local.set $open (i32.sub (local.get $open) (i32.const 1)))
            (local.set $keys (i32.load offset=4 (i32.add (local.get $stack) (i32.shl (local.get $open) (i32.const 3)))))
            (local.set $expectKey (i32.const 0))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 44))
          (then
            (local.set $expectKey (i32.load (i32.add (local.get $stack) (i32.shl (i32.sub (local.get $open) (i32.const 1)) (i32.const 3)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $next)))
        (if (i32.eq (local.get $c) (i32.const 58))
          (then (local.set $i (i32.add (local.get $i) (i32.const 1))) (br $next)))
        ;; true, false, null (the body was checked), or a number; whitespace is not JSON.stringify's.
        (if (i32.eq (local.get $c) (i32.const 116)) (then (local.set $i (i32.add (local.get $i) (i32.const 4))) (br $next)))
        (if (i32.eq (local.get $c) (i32.const 102)) (then (local.set $i (i32.add (local.get $i) (i32.const 5))) (br $next)))
        (if (i32.eq (local.get $c) (i32.const 110)) (then (local.set $i (i32.add (local.get $i) (i32.const 4))) (br $next)))
        (if (i32.and (i32.ne (local.get $c) (i32.const 45)) (i32.ge_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)))
          (then (return (i32.const -1))))
        ;; A whole number of up to 15 digits without a leading zero is as JSON.stringify writes it;
        ;; any other is left to JavaScript, which writes it to see.
        (local.set $plain (i32.or (i32.ne (local.get $c) (i32.const 45))
                                  (i32.lt_u (i32.sub (i32.load8_u offset=1 (local.get $i)) (i32.const 49)) (i32.const 9))))
        (local.set $j (i32.add (local.get $i) (i32.const 1)))
        (block $end
          (loop $num
            (br_if $end (i32.ge_u (local.get $j) (local.get $to)))
            (local.set $e (i32.load8_u (local.get $j)))
            (if (i32.lt_u (i32.sub (local.get $e) (i32.const 48)) (i32.const 10))
              (then (local.set $j (i32.add (local.get $j) (i32.const 1))) (br $num)))
            (br_if $end (i32.eqz (i32.or
              (i32.or (i32.eq (local.get $e) (i32.const 46)) (i32.eq (i32.or (local.get $e) (i32.const 32)) (i32.const 101)))
              (i32.or (i32.eq (local.get $e) (i32.const 43)) (i32.eq (local.get $e) (i32.const 45))))))
            (local.set $plain (i32.const 0))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $num)))
        (if (i32.or (i32.eqz (local.get $plain))
                    (i32.gt_u (i32.sub (i32.sub (local.get $j) (local.get $i)) (i32.eq (local.get $c) (i32.const 45))) (i32.const 15)))
          (then (return (i32.const -2))))
        (if (i32.and (i32.gt_u (i32.sub (local.get $j) (local.get $i)) (i32.const 1))
                     (i32.eq (i32.load8_u (i32.add (local.get $i) (i32.eq (local.get $c) (i32.const 45)))) (i32.const 48)))
          (then (return (i32.const -2))))
        (local.set $i (local.get $j))
        (br $next)))
    (local.get $extra))
  ;; The bytes [src, src + len) at out as a JSON string's literal (what $instring checked): in
  ;; quotes, a backslash before each quote and backslash; sixteen bytes stored at a time, moving on
  ;; by as many as are neither. Returns the offset past the closing quote.
  (func $inString (param $src i32) (param $len i32) (param $out i32) (result i32)
    (local $end i32) (local $v v128) (local $m i32) (local $c i32)
    (local.set $end (i32.add (local.get $src) (local.get $len)))
    (i32.store8 (local.get $out) (i32.const 34))
    (local.set $out (i32.add (local.get $out) (i32.const 1)))
    (block $done
      (loop $next
        (if (i32.le_u (i32.add (local.get $src) (i32.const 16)) (local.get $end))
          (then
            (local.set $v (v128.load (local.get $src)))
            (v128.store (local.get $out) (local.get $v))
            (local.set $m (i8x16.bitmask (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))))
            (if (i32.eqz (local.get $m))
              (then
                (local.set $src (i32.add (local.get $src) (i32.const 16)))
                (local.set $out (i32.add (local.get $out) (i32.const 16)))
                (br $next)))
            (local.set $m (i32.ctz (local.get $m)))
            (local.set $src (i32.add (local.get $src) (local.get $m)))
            (local.set $out (i32.add (local.get $out) (local.get $m)))))
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $src)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
          (then
            (i32.store8 (local.get $out) (i32.const 92))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))))
        (i32.store8 (local.get $out) (local.get $c))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (local.set $src (i32.add (local.get $src) (i32.const 1)))
        (br $next)))
    (i32.store8 (local.get $out) (i32.const 34))
    (i32.add (local.get $out) (i32.const 1)))
  (func $spans (export "spans") (param $cmds i32) (param $end i32) (param $consts i32) (param $out i32) (result i32)
    (local $w i32) (local $src i32) (local $len i32) (local $k i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $cmds) (local.get $end)))
        (local.set $w (i32.load (local.get $cmds)))
        (if (i32.lt_s (local.get $w) (i32.const 0))
          (then
            (local.set $w (i32.xor (local.get $w) (i32.const -1)))
            (local.set $src (i32.add (local.get $consts) (i32.shr_u (local.get $w) (i32.const 8))))
            (local.set $len (i32.and (local.get $w) (i32.const 255)))
            (if (local.get $len)
              (then (local.set $cmds (i32.add (local.get $cmds) (i32.const 4))))
              (else
                (local.set $len (i32.load offset=4 (local.get $cmds)))
                (local.set $cmds (i32.add (local.get $cmds) (i32.const 8))))))
          (else
            (local.set $src (local.get $w))
            (local.set $len (i32.load offset=4 (local.get $cmds)))
            (local.set $cmds (i32.add (local.get $cmds) (i32.const 8)))
            ;; A negative length (~len): a value written as a JSON string (SpanWriter#inString).
            (if (i32.lt_s (local.get $len) (i32.const 0))
              (then
                (local.set $out (call $inString (local.get $src) (i32.xor (local.get $len) (i32.const -1)) (local.get $out)))
                (br $next)))))
        (if (i32.gt_u (local.get $len) (i32.const 128))
          (then (memory.copy (local.get $out) (local.get $src) (local.get $len)))
          (else
            (if (i32.ge_u (local.get $len) (i32.const 16))
              (then
                (local.set $k (i32.const 0))
                (loop $sixteen
                  (v128.store (i32.add (local.get $out) (local.get $k)) (v128.load (i32.add (local.get $src) (local.get $k))))
                  (local.set $k (i32.add (local.get $k) (i32.const 16)))
                  (br_if $sixteen (i32.le_u (i32.add (local.get $k) (i32.const 16)) (local.get $len))))
                (local.set $k (i32.sub (local.get $len) (i32.const 16)))
                (v128.store (i32.add (local.get $out) (local.get $k)) (v128.load (i32.add (local.get $src) (local.get $k)))))
              (else
                (if (i32.ge_u (local.get $len) (i32.const 8))
                  (then
                    (i64.store (local.get $out) (i64.load (local.get $src)))
                    (local.set $k (i32.sub (local.get $len) (i32.const 8)))
                    (i64.store (i32.add (local.get $out) (local.get $k)) (i64.load (i32.add (local.get $src) (local.get $k)))))
                  (else
                    (local.set $k (i32.const 0))
                    (block $bytes
                      (loop $byte
                        (br_if $bytes (i32.ge_u (local.get $k) (local.get $len)))
                        (i32.store8 (i32.add (local.get $out) (local.get $k)) (i32.load8_u (i32.add (local.get $src) (local.get $k))))
                        (local.set $k (i32.add (local.get $k) (i32.const 1)))
                        (br $byte)))))))))
        (local.set $out (i32.add (local.get $out) (local.get $len)))
        (br $next)))
    (local.get $out))
  ;; `conversation(msgs, count, cmds, cap, consts, stack, keycap, first, body, keys, parts, partscap, max)`: a Messages body's
  ;; conversation as the commands `spans` copies (lib/span-writer.ts's words), the walk
  ;; formats/messages/content-bytes.ts makes in JavaScript, made here: there each of its typed
  ;; array reads was checked (map, detached buffer, bounds) and the walk cost ~1,500 instructions a
  ;; message of the bench's Claude Code turn. `msgs`: `count` message records of 6 i32 (first byte,
  ;; role's span, content's span, where its blocks' records are: scanRecords' with MESSAGE_KEYS);
  ;; blocks' records of 17 i32 (BLOCK_KEYS). `consts`: the constants' codes, in CONVERSATION_CONSTANTS'
  ;; order. Commands go from `cmds` to at most `cap`; `stack` and `keycap` are $instring's room.
  ;; `first`: no message is written before. A tool result's parts are scanned ($records, the body's
  ;; `body` bytes, nesting at most `max`) with the block keys' table at `keys` into `parts`, at most
  ;; `partscap` of them. Returns the offset past the last command, its bytes at cmds - 8 and whether
  ;; a message was written at cmds - 4 (0 or 1); -1 when JavaScript must walk it: what the walk
  ;; refuses, an input $instring leaves, no room.
  (global $cw (mut i32) (i32.const 0))
  (global $ccap (mut i32) (i32.const 0))
  (global $clen (mut i32) (i32.const 0))
  (global $cconsts (mut i32) (i32.const 0))
  (global $cfirst (mut i32) (i32.const 0))
  (global $cbody (mut i32) (i32.const 0))
  (global $ckeys (mut i32) (i32.const 0))
  (global $cparts (mut i32) (i32.const 0))
  (global $cpartscap (mut i32) (i32.const 0))
  (global $cmax (mut i32) (i32.const 0))
  (func $is (param $from i32) (param $to i32) (param $lit v128) (param $len i32) (result i32)
    (local $all i32)
    (if (i32.ne (i32.sub (local.get $to) (local.get $from)) (local.get $len)) (then (return (i32.const 0))))
    (local.set $all (i32.sub (i32.shl (i32.const 1) (local.get $len)) (i32.const 1)))
    (i32.eq (i32.and (i8x16.bitmask (i8x16.eq (v128.load align=1 (local.get $from)) (local.get $lit))) (local.get $all)) (local.get $all)))
  ;; A walk's start ($conversation's, $items'): its commands from cmds to at most cap, none yet; the
  ;; constants' table; the body's bytes, the part keys' table and the parts' room for $scanParts.
  (func $begin (param $cmds i32) (param $cap i32) (param $consts i32) (param $body i32) (param $keys i32) (param $parts i32)
    (param $partscap i32) (param $max i32)
    (global.set $cw (local.get $cmds))
    (global.set $ccap (local.get $cap))
    (global.set $clen (i32.const 0))
    (global.set $cconsts (local.get $consts))
    (global.set $cbody (local.get $body))
    (global.set $ckeys (local.get $keys))
    (global.set $cparts (local.get $parts))
    (global.set $cpartscap (local.get $partscap))
    (global.set $cmax (local.get $max)))
  ;; The array at i (a tool result's or a function output's parts, at nesting `depth`), its
  ;; elements' records by the first `count` part keys in the walk's parts' room: their number, -1
  ;; when JavaScript must decide.
  (func $scanParts (param $i i32) (param $count i32) (param $depth i32) (result i32)
    (if (i32.lt_s (call $records (local.get $i) (global.get $cbody) (global.get $ckeys) (local.get $count) (global.get $cparts)
        (global.get $cpartscap) (local.get $depth) (global.get $cmax)) (i32.const 0))
      (then (return (i32.const -1))))
    (i32.load (global.get $cparts)))
  ;; A constant by its index in the table.
  (func $put (param $k i32) (result i32)
    (local $w i32)
    (if (i32.gt_u (i32.add (global.get $cw) (i32.const 4)) (global.get $ccap)) (then (return (i32.const 0))))
    (local.set $w (i32.load (i32.add (global.get $cconsts) (i32.shl (local.get $k) (i32.const 2)))))
    (i32.store (global.get $cw) (local.get $w))
    (global.set $cw (i32.add (global.get $cw) (i32.const 4)))
    (global.set $clen (i32.add (global.get $clen) (i32.and (i32.xor (local.get $w) (i32.const -1)) (i32.const 255))))
    (i32.const 1))
  ;; body[from, to); `adds` >= 0: written as a JSON string (SpanWriter#inString), adding that many bytes.
  (func $piece (param $from i32) (param $to i32) (param $adds i32) (result i32)
    (local $len i32)
    (if (i32.gt_u (i32.add (global.get $cw) (i32.const 8)) (global.get $ccap)) (then (return (i32.const 0))))
    (local.set $len (i32.sub (local.get $to) (local.get $from)))
    (i32.store (global.get $cw) (local.get $from))
    (if (i32.ge_s (local.get $adds) (i32.const 0))
      (then
        (i32.store offset=4 (global.get $cw) (i32.xor (local.get $len) (i32.const -1)))
        (local.set $len (i32.add (local.get $len) (local.get $adds))))
      (else (i32.store offset=4 (global.get $cw) (local.get $len))))
    (global.set $cw (i32.add (global.get $cw) (i32.const 8)))
    (global.set $clen (i32.add (global.get $clen) (local.get $len)))
    (i32.const 1))
  ;; A message's opening (the head at index h, or after a comma the one at h + 1).
  (func $open (param $h i32) (result i32)
    (if (global.get $cfirst)
      (then
        (global.set $cfirst (i32.const 0))
        (return (call $put (local.get $h)))))
    (call $put (i32.add (local.get $h) (i32.const 1))))
  ;; A block's kind (content-bytes.ts's kind): 0 text, 1 tool_use, 2 tool_result, 3 thinking, -1 any
  ;; other. The type's length (and for the two of ten bytes, its third) tells which it can be: one
  ;; compare a block.
  (func $kind (param $b i32) (result i32)
    (local $from i32) (local $to i32) (local $len i32)
    (local.set $from (i32.load offset=4 (local.get $b)))
    (local.set $to (i32.load offset=8 (local.get $b)))
    (if (i32.lt_s (local.get $from) (i32.const 0)) (then (return (i32.const -1))))
    (local.set $len (i32.sub (local.get $to) (local.get $from)))
    (if (i32.eq (local.get $len) (i32.const 6))
      (then (return (select (i32.const 0) (i32.const -1) (call $is (local.get $from) (local.get $to)
        (v128.const i8x16 0x22 0x74 0x65 0x78 0x74 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 6))))))
    (if (i32.eq (local.get $len) (i32.const 10))
      (then
        (if (i32.eq (i32.load8_u offset=2 (local.get $from)) (i32.const 0x6f))
          (then (return (select (i32.const 1) (i32.const -1) (call $is (local.get $from) (local.get $to)
            (v128.const i8x16 0x22 0x74 0x6f 0x6f 0x6c 0x5f 0x75 0x73 0x65 0x22 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 10))))))
        (return (select (i32.const 3) (i32.const -1) (call $is (local.get $from) (local.get $to)
          (v128.const i8x16 0x22 0x74 0x68 0x69 0x6e 0x6b 0x69 0x6e 0x67 0x22 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 10))))))
    (if (i32.eq (local.get $len) (i32.const 13))
      (then (return (select (i32.const 2) (i32.const -1) (call $is (local.get $from) (local.get $to)
        (v128.const i8x16 0x22 0x74 0x6f 0x6f 0x6c 0x5f 0x72 0x65 0x73 0x75 0x6c 0x74 0x22 0x00 0x00 0x00) (i32.const 13))))))
    ;; "redacted_thinking": 19 bytes, its first sixteen and its last sixteen.
    (if (i32.eq (local.get $len) (i32.const 19))
      (then (if (i32.and
          (call $is (local.get $from) (i32.add (local.get $from) (i32.const 16))
            (v128.const i8x16 0x22 0x72 0x65 0x64 0x61 0x63 0x74 0x65 0x64 0x5f 0x74 0x68 0x69 0x6e 0x6b 0x69) (i32.const 16))
          (call $is (i32.sub (local.get $to) (i32.const 16)) (local.get $to)
            (v128.const i8x16 0x64 0x61 0x63 0x74 0x65 0x64 0x5f 0x74 0x68 0x69 0x6e 0x6b 0x69 0x6e 0x67 0x22) (i32.const 16)))
        (then (return (i32.const 3))))))
    (i32.const -1))
  ;; Whether the block record at b is an object whose text member is a string.
  (func $textBlock (param $b i32) (result i32)
    (local $from i32)
    (local.set $from (i32.load offset=12 (local.get $b)))
    (if (i32.lt_s (local.get $from) (i32.const 0)) (then (return (i32.const 0))))
    (i32.eq (i32.load8_u (local.get $from)) (i32.const 34)))
  ;; The text blocks among n at recs joined (the insides of their strings), `sep` between two (-1: none).
  (func $joined (param $recs i32) (param $n i32) (param $sep i32) (result i32)
    (local $j i32) (local $b i32) (local $any i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $b (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 68))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $next (i32.ne (call $kind (local.get $b)) (i32.const 0)))
        (if (i32.and (local.get $any) (i32.ge_s (local.get $sep) (i32.const 0)))
          (then (if (i32.eqz (call $put (local.get $sep))) (then (return (i32.const 0))))))
        (local.set $any (i32.const 1))
        (if (i32.eqz (call $piece (i32.add (i32.load offset=12 (local.get $b)) (i32.const 1))
            (i32.sub (i32.load offset=16 (local.get $b)) (i32.const 1)) (i32.const -1)))
          (then (return (i32.const 0))))
        (br $next)))
    (i32.const 1))
  (func $toolResult (param $b i32) (result i32)
    (local $id i32) (local $content i32) (local $error i32) (local $isError i32) (local $parts i32) (local $n i32) (local $j i32) (local $p i32)
    (local.set $id (i32.load offset=44 (local.get $b)))
    (if (i32.lt_s (local.get $id) (i32.const 0)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u (local.get $id)) (i32.const 34)) (then (return (i32.const 0))))
    (local.set $content (i32.load offset=52 (local.get $b)))
    (local.set $error (i32.load offset=60 (local.get $b)))
    (if (i32.ge_s (local.get $error) (i32.const 0))
      (then (local.set $isError (call $is (local.get $error) (i32.load offset=64 (local.get $b))
        (v128.const i8x16 0x74 0x72 0x75 0x65 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 4)))))
    (local.set $parts (i32.const -1))
    (if (i32.ge_s (local.get $content) (i32.const 0))
      (then
        (if (i32.eq (i32.load8_u (local.get $content)) (i32.const 91))
          (then
            ;; Parts: their records scanned into the walk's own room, each a text block (block keys).
            (local.set $n (call $scanParts (local.get $content) (i32.const 8) (i32.const 6)))
            (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return (i32.const 0))))
            (local.set $parts (i32.add (global.get $cparts) (i32.const 4)))
            (block $checked
              (loop $part
                (br_if $checked (i32.ge_u (local.get $j) (local.get $n)))
                (local.set $p (i32.add (local.get $parts) (i32.mul (local.get $j) (i32.const 68))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (if (i32.ne (i32.load8_u (i32.load (local.get $p))) (i32.const 123)) (then (return (i32.const 0))))
                (if (i32.ne (call $kind (local.get $p)) (i32.const 0)) (then (return (i32.const 0))))
                (if (i32.eqz (call $textBlock (local.get $p))) (then (return (i32.const 0))))
                (br $part))))
          (else (if (i32.ne (i32.load8_u (local.get $content)) (i32.const 34)) (then (return (i32.const 0))))))))
    (if (i32.eqz (call $open (i32.const 12))) (then (return (i32.const 0))))
    (if (i32.eqz (call $piece (local.get $id) (i32.load offset=48 (local.get $b)) (i32.const -1))) (then (return (i32.const 0))))
    (if (i32.eqz (call $put (select (i32.const 15) (i32.const 14) (local.get $isError)))) (then (return (i32.const 0))))
    (if (i32.ge_s (local.get $parts) (i32.const 0))
      (then (if (i32.eqz (call $joined (local.get $parts) (local.get $n) (i32.const 27))) (then (return (i32.const 0))))))
    (if (i32.and (i32.lt_s (local.get $parts) (i32.const 0)) (i32.ge_s (local.get $content) (i32.const 0)))
      (then (if (i32.eqz (call $piece (i32.add (local.get $content) (i32.const 1)) (i32.sub (i32.load offset=56 (local.get $b)) (i32.const 1)) (i32.const -1)))
        (then (return (i32.const 0))))))
    (call $put (i32.const 16)))
  (func $userBlocks (param $recs i32) (param $n i32) (result i32)
    (local $j i32) (local $b i32) (local $k i32) (local $texts i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $b (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 68))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $b))) (i32.const 123)) (then (return (i32.const 0))))
        (local.set $k (call $kind (local.get $b)))
        (if (i32.eqz (local.get $k))
          (then
            (if (i32.eqz (call $textBlock (local.get $b))) (then (return (i32.const 0))))
            (local.set $texts (i32.add (local.get $texts) (i32.const 1)))
            (br $next)))
        (if (i32.eq (local.get $k) (i32.const 2))
          (then
            (if (i32.eqz (call $toolResult (local.get $b))) (then (return (i32.const 0))))
            (br $next)))
        (br_if $next (i32.eq (local.get $k) (i32.const 3)))
        (return (i32.const 0))))
    (if (i32.eqz (local.get $texts)) (then (return (i32.const 1))))
    (if (i32.eqz (call $open (i32.const 2))) (then (return (i32.const 0))))
    (if (i32.eqz (call $joined (local.get $recs) (local.get $n) (i32.const 27))) (then (return (i32.const 0))))
    (call $put (i32.const 16)))
  (func $assistantBlocks (param $recs i32) (param $n i32) (param $stack i32) (param $keycap i32) (result i32)
    (local $j i32) (local $b i32) (local $k i32) (local $texts i32) (local $calls i32) (local $c i32) (local $input i32) (local $adds i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $b (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 68))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $b))) (i32.const 123)) (then (return (i32.const 0))))
        (local.set $k (call $kind (local.get $b)))
        (if (i32.eqz (local.get $k))
          (then
            (if (i32.eqz (call $textBlock (local.get $b))) (then (return (i32.const 0))))
            (local.set $texts (i32.add (local.get $texts) (i32.const 1)))
            (br $next)))
        (if (i32.eq (local.get $k) (i32.const 1))
          (then
            ;; id and name strings; input an object, null or absent.
            (if (i32.lt_s (i32.load offset=20 (local.get $b)) (i32.const 0)) (then (return (i32.const 0))))
            (if (i32.ne (i32.load8_u (i32.load offset=20 (local.get $b))) (i32.const 34)) (then (return (i32.const 0))))
            (if (i32.lt_s (i32.load offset=28 (local.get $b)) (i32.const 0)) (then (return (i32.const 0))))
            (if (i32.ne (i32.load8_u (i32.load offset=28 (local.get $b))) (i32.const 34)) (then (return (i32.const 0))))
            (local.set $input (i32.load offset=36 (local.get $b)))
            (if (i32.ge_s (local.get $input) (i32.const 0))
              (then (if (i32.ne (i32.load8_u (local.get $input)) (i32.const 123))
                (then (if (i32.eqz (call $is (local.get $input) (i32.load offset=40 (local.get $b))
                    (v128.const i8x16 0x6e 0x75 0x6c 0x6c 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 4)))
                  (then (return (i32.const 0))))))))
            (local.set $calls (i32.add (local.get $calls) (i32.const 1)))
            (br $next)))
        (br_if $next (i32.eq (local.get $k) (i32.const 3)))
        (return (i32.const 0))))
    (if (local.get $texts)
      (then
        (if (i32.eqz (call $open (i32.const 6))) (then (return (i32.const 0))))
        (if (i32.eqz (call $joined (local.get $recs) (local.get $n) (i32.const -1))) (then (return (i32.const 0))))
        (if (i32.eqz (call $put (select (i32.const 18) (i32.const 16) (local.get $calls)))) (then (return (i32.const 0)))))
      (else
        (if (i32.eqz (call $open (i32.const 4))) (then (return (i32.const 0))))
        (if (i32.eqz (call $put (select (i32.const 19) (i32.const 20) (local.get $calls)))) (then (return (i32.const 0))))))
    (if (i32.eqz (local.get $calls)) (then (return (i32.const 1))))
    (local.set $j (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $b (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 68))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $next (i32.ne (call $kind (local.get $b)) (i32.const 1)))
        (if (i32.eqz (call $put (select (i32.const 22) (i32.const 21) (local.get $c)))) (then (return (i32.const 0))))
        (local.set $c (i32.const 1))
        (if (i32.eqz (call $piece (i32.load offset=20 (local.get $b)) (i32.load offset=24 (local.get $b)) (i32.const -1))) (then (return (i32.const 0))))
        (if (i32.eqz (call $put (i32.const 23))) (then (return (i32.const 0))))
        (if (i32.eqz (call $piece (i32.load offset=28 (local.get $b)) (i32.load offset=32 (local.get $b)) (i32.const -1))) (then (return (i32.const 0))))
        (local.set $input (i32.load offset=36 (local.get $b)))
        (if (i32.lt_s (local.get $input) (i32.const 0)) (then (local.set $input (i32.const -1)))
          (else (if (i32.ne (i32.load8_u (local.get $input)) (i32.const 123)) (then (local.set $input (i32.const -1))))))
        (if (i32.lt_s (local.get $input) (i32.const 0))
          (then (if (i32.eqz (call $put (i32.const 25))) (then (return (i32.const 0)))))
          (else
            (if (i32.eqz (call $put (i32.const 24))) (then (return (i32.const 0))))
            ;; The arguments: the input's JSON text in a string, when it is spelled as JSON.stringify writes it.
            (local.set $adds (call $instring (local.get $input) (i32.load offset=40 (local.get $b)) (local.get $stack) (local.get $keycap)))
            (if (i32.lt_s (local.get $adds) (i32.const 0)) (then (return (i32.const 0))))
            (if (i32.eqz (call $piece (local.get $input) (i32.load offset=40 (local.get $b)) (local.get $adds))) (then (return (i32.const 0))))))
        (br $next)))
    (call $put (i32.const 26)))
  (func $systemBlocks (param $recs i32) (param $n i32) (result i32)
    (local $j i32) (local $b i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $b (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 68))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $b))) (i32.const 123)) (then (return (i32.const 0))))
        (if (i32.ne (call $kind (local.get $b)) (i32.const 0)) (then (return (i32.const 0))))
        (if (i32.eqz (call $textBlock (local.get $b))) (then (return (i32.const 0))))
        (br $next)))
    (if (i32.eqz (call $open (i32.const 10))) (then (return (i32.const 0))))
    (if (i32.eqz (call $joined (local.get $recs) (local.get $n) (i32.const 27))) (then (return (i32.const 0))))
    (call $put (i32.const 16)))
  (func $conversation (export "conversation") (param $msgs i32) (param $count i32) (param $cmds i32) (param $cap i32) (param $consts i32)
    (param $stack i32) (param $keycap i32) (param $first i32) (param $body i32) (param $keys i32) (param $parts i32) (param $partscap i32)
    (param $max i32) (result i32)
    (local $e i32) (local $m i32) (local $role i32) (local $roleEnd i32) (local $content i32) (local $contentEnd i32)
    (local $string i32) (local $nested i32) (local $ok i32) (local $recs i32) (local $n i32) (local $h i32)
    (call $begin (local.get $cmds) (local.get $cap) (local.get $consts) (local.get $body) (local.get $keys) (local.get $parts)
      (local.get $partscap) (local.get $max))
    (global.set $cfirst (local.get $first))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $e) (local.get $count)))
        (local.set $m (i32.add (local.get $msgs) (i32.mul (local.get $e) (i32.const 24))))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $m))) (i32.const 123)) (then (return (i32.const -1))))
        (local.set $role (i32.load offset=4 (local.get $m)))
        (local.set $roleEnd (i32.load offset=8 (local.get $m)))
        (local.set $content (i32.load offset=12 (local.get $m)))
        (local.set $contentEnd (i32.load offset=16 (local.get $m)))
        (if (i32.or (i32.lt_s (local.get $role) (i32.const 0)) (i32.lt_s (local.get $content) (i32.const 0))) (then (return (i32.const -1))))
        (local.set $string (i32.eq (i32.load8_u (local.get $content)) (i32.const 34)))
        (if (i32.eqz (local.get $string))
          (then
            (if (i32.ne (i32.load8_u (local.get $content)) (i32.const 91)) (then (return (i32.const -1))))
            (local.set $nested (i32.load offset=20 (local.get $m)))
            (if (i32.lt_s (local.get $nested) (i32.const 0)) (then (return (i32.const -1))))
            (local.set $n (i32.load (local.get $nested)))
            (local.set $recs (i32.add (local.get $nested) (i32.const 4)))))
        ;; The role: its string head's index (user 0, assistant 4, system 8), or none.
        (local.set $h (i32.const -1))
        (if (call $is (local.get $role) (local.get $roleEnd)
            (v128.const i8x16 0x22 0x75 0x73 0x65 0x72 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 6))
          (then (local.set $h (i32.const 0)))
          (else (if (call $is (local.get $role) (local.get $roleEnd)
              (v128.const i8x16 0x22 0x61 0x73 0x73 0x69 0x73 0x74 0x61 0x6e 0x74 0x22 0x00 0x00 0x00 0x00 0x00) (i32.const 11))
            (then (local.set $h (i32.const 4)))
            (else (if (call $is (local.get $role) (local.get $roleEnd)
                (v128.const i8x16 0x22 0x73 0x79 0x73 0x74 0x65 0x6d 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 8))
              (then (local.set $h (i32.const 8))))))))
        (if (i32.lt_s (local.get $h) (i32.const 0)) (then (return (i32.const -1))))
        (if (local.get $string)
          (then
            (local.set $ok (i32.and (call $open (local.get $h)) (call $piece (local.get $content) (local.get $contentEnd) (i32.const -1))))
            (local.set $ok (i32.and (local.get $ok) (call $put (i32.const 17)))))
          (else
            (if (i32.eqz (local.get $h)) (then (local.set $ok (call $userBlocks (local.get $recs) (local.get $n)))))
            (if (i32.eq (local.get $h) (i32.const 4)) (then (local.set $ok (call $assistantBlocks (local.get $recs) (local.get $n) (local.get $stack) (local.get $keycap)))))
            (if (i32.eq (local.get $h) (i32.const 8)) (then (local.set $ok (call $systemBlocks (local.get $recs) (local.get $n)))))))
        (if (i32.eqz (local.get $ok)) (then (return (i32.const -1))))
        (br $next)))
    (i32.store (i32.sub (local.get $cmds) (i32.const 8)) (global.get $clen))
    (i32.store (i32.sub (local.get $cmds) (i32.const 4)) (global.get $cfirst))
    (global.get $cw))
  ;; `items(recs, count, cmds, cap, consts, body, keys, parts, partscap, max)`: a Responses body's
  ;; input items as the commands `spans` copies, the walk formats/responses/input-bytes.ts makes
  ;; in JavaScript, made here as $conversation makes a Messages conversation's. `recs`: `count`
  ;; item records of 16 i32 (first byte; type, role, content, call_id, name, arguments, output
  ;; spans; where a message's parts' records are: ITEM_KEYS'); parts' records of 5 i32 (PART_KEYS').
  ;; `consts`: the constants' codes, in ITEM_CONSTANTS' order. A function output's parts are
  ;; scanned ($records, nesting at most `max`) with the part keys' table at `keys` into `parts`, at
  ;; most `partscap` of them. Returns the offset past the last command, its bytes at cmds - 8 and
  ;; the messages that are not system messages at cmds - 4; -1 when JavaScript must walk them.
  (global $rstate (mut i32) (i32.const 0))
  (global $rcount (mut i32) (i32.const 0))
  (global $rspoken (mut i32) (i32.const 0))
  (global $rcalls (mut i32) (i32.const 0))
  (global $rempty (mut i32) (i32.const 0))
  (global $rtexts (mut i32) (i32.const 0))
  ;; How the last message written ends: 1 closed, 2 an assistant message with empty content, 3 with calls.
  (func $ending (result i32)
    (if (i32.eqz (global.get $rstate)) (then (return (i32.const 1))))
    (if (global.get $rcalls) (then (return (i32.const 3))))
    (select (i32.const 2) (i32.const 1) (global.get $rempty)))
  ;; A new message's opening, the heads from index h on by how the one before ends.
  (func $itemOpen (param $h i32) (result i32)
    (local $k i32)
    (if (global.get $rcount) (then (local.set $k (call $ending))))
    (global.set $rstate (i32.const 0))
    (global.set $rcount (i32.add (global.get $rcount) (i32.const 1)))
    (call $put (i32.add (local.get $h) (local.get $k))))
  ;; The n parts' records at recs all text parts (input_text, or with `output` output_text too) of string texts.
  (func $textParts (param $recs i32) (param $n i32) (param $output i32) (result i32)
    (local $j i32) (local $p i32) (local $from i32) (local $to i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $p (i32.add (local.get $recs) (i32.mul (local.get $j) (i32.const 20))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $p))) (i32.const 123)) (then (return (i32.const 0))))
        (local.set $from (i32.load offset=4 (local.get $p)))
        (local.set $to (i32.load offset=8 (local.get $p)))
        (if (i32.lt_s (local.get $from) (i32.const 0)) (then (return (i32.const 0))))
        (if (i32.eqz (call $is (local.get $from) (local.get $to)
            (v128.const i8x16 0x22 0x69 0x6e 0x70 0x75 0x74 0x5f 0x74 0x65 0x78 0x74 0x22 0x00 0x00 0x00 0x00) (i32.const 12)))
          (then
            (if (i32.eqz (local.get $output)) (then (return (i32.const 0))))
            (if (i32.eqz (call $is (local.get $from) (local.get $to)
                (v128.const i8x16 0x22 0x6f 0x75 0x74 0x70 0x75 0x74 0x5f 0x74 0x65 0x78 0x74 0x22 0x00 0x00 0x00) (i32.const 13)))
              (then (return (i32.const 0))))))
        (local.set $from (i32.load offset=12 (local.get $p)))
        (if (i32.lt_s (local.get $from) (i32.const 0)) (then (return (i32.const 0))))
        (br_if $next (i32.eq (i32.load8_u (local.get $from)) (i32.const 34)))
        (return (i32.const 0))))
    (i32.const 1))
  ;; The n parts' texts (at $rtexts) joined as one string, the content.
  (func $itemJoined (param $n i32) (result i32)
    (local $j i32) (local $p i32)
    (if (i32.eqz (call $put (i32.const 20))) (then (return (i32.const 0))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $p (i32.add (global.get $rtexts) (i32.mul (local.get $j) (i32.const 20))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (if (i32.eqz (call $piece (i32.add (i32.load offset=12 (local.get $p)) (i32.const 1)) (i32.sub (i32.load offset=16 (local.get $p)) (i32.const 1)) (i32.const -1)))
          (then (return (i32.const 0))))
        (br $next)))
    (call $put (i32.const 38)))
  ;; A string of at least one character at [from, to).
  (func $nonEmpty (param $from i32) (param $to i32) (result i32)
    (if (i32.lt_s (local.get $from) (i32.const 0)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u (local.get $from)) (i32.const 34)) (then (return (i32.const 0))))
    (i32.gt_s (i32.sub (local.get $to) (local.get $from)) (i32.const 2)))
  (func $itemMessage (param $rec i32) (result i32)
    (local $roleAt i32) (local $roleEnd i32) (local $role i32) (local $content i32) (local $contentEnd i32) (local $parts i32)
    (local $nested i32) (local $chat i32) (local $j i32) (local $p i32)
    (local.set $roleAt (i32.load offset=12 (local.get $rec)))
    (local.set $roleEnd (i32.load offset=16 (local.get $rec)))
    (local.set $role (i32.const -1))
    (if (i32.ge_s (local.get $roleAt) (i32.const 0))
      (then
        (if (call $is (local.get $roleAt) (local.get $roleEnd)
            (v128.const i8x16 0x22 0x75 0x73 0x65 0x72 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 6))
          (then (local.set $role (i32.const 0)))
          (else (if (call $is (local.get $roleAt) (local.get $roleEnd)
              (v128.const i8x16 0x22 0x61 0x73 0x73 0x69 0x73 0x74 0x61 0x6e 0x74 0x22 0x00 0x00 0x00 0x00 0x00) (i32.const 11))
            (then (local.set $role (i32.const 1)))
            (else (if (call $is (local.get $roleAt) (local.get $roleEnd)
                (v128.const i8x16 0x22 0x73 0x79 0x73 0x74 0x65 0x6d 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 8))
              (then (local.set $role (i32.const 2)))
              (else (if (call $is (local.get $roleAt) (local.get $roleEnd)
                  (v128.const i8x16 0x22 0x64 0x65 0x76 0x65 0x6c 0x6f 0x70 0x65 0x72 0x22 0x00 0x00 0x00 0x00 0x00) (i32.const 11))
                (then (local.set $role (i32.const 3))))))))))))
    (local.set $content (i32.load offset=20 (local.get $rec)))
    (local.set $contentEnd (i32.load offset=24 (local.get $rec)))
    (if (i32.or (i32.lt_s (local.get $role) (i32.const 0)) (i32.lt_s (local.get $content) (i32.const 0))) (then (return (i32.const 0))))
    (local.set $parts (i32.const -1))
    (if (i32.eq (i32.load8_u (local.get $content)) (i32.const 91))
      (then
        (local.set $nested (i32.load offset=60 (local.get $rec)))
        (if (i32.lt_s (local.get $nested) (i32.const 0)) (then (return (i32.const 0))))
        (local.set $parts (i32.load (local.get $nested)))
        (if (i32.eqz (call $textParts (i32.add (local.get $nested) (i32.const 4)) (local.get $parts) (i32.const 1))) (then (return (i32.const 0))))
        (global.set $rtexts (i32.add (local.get $nested) (i32.const 4))))
      (else (if (i32.ne (i32.load8_u (local.get $content)) (i32.const 34)) (then (return (i32.const 0))))))
    (if (i32.eqz (call $itemOpen (i32.shl (local.get $role) (i32.const 2)))) (then (return (i32.const 0))))
    ;; Chat's roles: user, assistant, and system for system and developer.
    (local.set $chat (select (local.get $role) (i32.const 2) (i32.lt_u (local.get $role) (i32.const 2))))
    (if (i32.ne (local.get $chat) (i32.const 2)) (then (global.set $rspoken (i32.add (global.get $rspoken) (i32.const 1)))))
    (if (i32.eq (local.get $chat) (i32.const 1))
      (then
        (global.set $rstate (i32.const 1))
        (global.set $rcalls (i32.const 0))
        ;; Written when known: null if a call joins the message, "" if none does.
        (if (i32.lt_s (local.get $parts) (i32.const 0))
          (then (global.set $rempty (i32.eq (i32.sub (local.get $contentEnd) (local.get $content)) (i32.const 2))))
          (else
            (global.set $rempty (i32.const 1))
            (local.set $j (i32.const 0))
            (block $done
              (loop $next
                (br_if $done (i32.ge_u (local.get $j) (local.get $parts)))
                (local.set $p (i32.add (global.get $rtexts) (i32.mul (local.get $j) (i32.const 20))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (if (i32.ne (i32.sub (i32.load offset=16 (local.get $p)) (i32.load offset=12 (local.get $p))) (i32.const 2))
                  (then (global.set $rempty (i32.const 0)) (br $done)))
                (br $next)))))
        (if (global.get $rempty) (then (return (i32.const 1))))))
    (if (i32.lt_s (local.get $parts) (i32.const 0))
      (then
        (if (i32.eqz (call $put (i32.const 19))) (then (return (i32.const 0))))
        (return (call $piece (local.get $content) (local.get $contentEnd) (i32.const -1)))))
    (if (i32.and (i32.eqz (local.get $chat)) (i32.ne (local.get $parts) (i32.const 1)))
      (then
        ;; A user message's text parts (none, or several), as chat's text parts.
        (if (i32.eqz (local.get $parts)) (then (return (call $put (i32.const 24)))))
        (local.set $j (i32.const 0))
        (block $done
          (loop $next
            (br_if $done (i32.ge_u (local.get $j) (local.get $parts)))
            (local.set $p (i32.add (global.get $rtexts) (i32.mul (local.get $j) (i32.const 20))))
            (if (i32.eqz (call $put (select (i32.const 22) (i32.const 21) (local.get $j)))) (then (return (i32.const 0))))
            (if (i32.eqz (call $piece (i32.load offset=12 (local.get $p)) (i32.load offset=16 (local.get $p)) (i32.const -1))) (then (return (i32.const 0))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $next)))
        (return (call $put (i32.const 23)))))
    (call $itemJoined (local.get $parts)))
  (func $itemCall (param $rec i32) (result i32)
    (local $args i32)
    (if (i32.eqz (call $nonEmpty (i32.load offset=28 (local.get $rec)) (i32.load offset=32 (local.get $rec)))) (then (return (i32.const 0))))
    (if (i32.eqz (call $nonEmpty (i32.load offset=36 (local.get $rec)) (i32.load offset=40 (local.get $rec)))) (then (return (i32.const 0))))
    (local.set $args (i32.load offset=44 (local.get $rec)))
    (if (i32.lt_s (local.get $args) (i32.const 0)) (then (return (i32.const 0))))
    (if (i32.ne (i32.load8_u (local.get $args)) (i32.const 34)) (then (return (i32.const 0))))
    ;; An assistant turn's calls go on one assistant message, as chat completions writes them.
    (if (global.get $rstate)
      (then (if (i32.eqz (call $put (select (i32.const 27) (select (i32.const 26) (i32.const 25) (global.get $rempty)) (global.get $rcalls))))
        (then (return (i32.const 0)))))
      (else
        (if (i32.eqz (call $itemOpen (i32.const 28))) (then (return (i32.const 0))))
        (global.set $rstate (i32.const 1))
        (global.set $rempty (i32.const 0))
        (global.set $rspoken (i32.add (global.get $rspoken) (i32.const 1)))))
    (global.set $rcalls (i32.add (global.get $rcalls) (i32.const 1)))
    (if (i32.eqz (call $piece (i32.load offset=28 (local.get $rec)) (i32.load offset=32 (local.get $rec)) (i32.const -1))) (then (return (i32.const 0))))
    (if (i32.eqz (call $put (i32.const 32))) (then (return (i32.const 0))))
    (if (i32.eqz (call $piece (i32.load offset=36 (local.get $rec)) (i32.load offset=40 (local.get $rec)) (i32.const -1))) (then (return (i32.const 0))))
    (if (i32.eqz (call $put (i32.const 33))) (then (return (i32.const 0))))
    (call $piece (local.get $args) (i32.load offset=48 (local.get $rec)) (i32.const -1)))
  (func $itemOutput (param $rec i32) (result i32)
    (local $out i32) (local $parts i32)
    (if (i32.eqz (call $nonEmpty (i32.load offset=28 (local.get $rec)) (i32.load offset=32 (local.get $rec)))) (then (return (i32.const 0))))
    (local.set $out (i32.load offset=52 (local.get $rec)))
    (if (i32.lt_s (local.get $out) (i32.const 0)) (then (return (i32.const 0))))
    (local.set $parts (i32.const -1))
    (if (i32.eq (i32.load8_u (local.get $out)) (i32.const 91))
      (then
        ;; An output given as input_text parts is their text joined.
        (local.set $parts (call $scanParts (local.get $out) (i32.const 2) (i32.const 4)))
        (if (i32.lt_s (local.get $parts) (i32.const 0)) (then (return (i32.const 0))))
        (if (i32.eqz (call $textParts (i32.add (global.get $cparts) (i32.const 4)) (local.get $parts) (i32.const 0))) (then (return (i32.const 0))))
        (global.set $rtexts (i32.add (global.get $cparts) (i32.const 4))))
      (else (if (i32.ne (i32.load8_u (local.get $out)) (i32.const 34)) (then (return (i32.const 0))))))
    (if (i32.eqz (call $itemOpen (i32.const 34))) (then (return (i32.const 0))))
    (if (i32.eqz (call $piece (i32.load offset=28 (local.get $rec)) (i32.load offset=32 (local.get $rec)) (i32.const -1))) (then (return (i32.const 0))))
    (global.set $rspoken (i32.add (global.get $rspoken) (i32.const 1)))
    (if (i32.ge_s (local.get $parts) (i32.const 0)) (then (return (call $itemJoined (local.get $parts)))))
    (if (i32.eqz (call $put (i32.const 19))) (then (return (i32.const 0))))
    (call $piece (local.get $out) (i32.load offset=56 (local.get $rec)) (i32.const -1)))
  (func $items (export "items") (param $recs i32) (param $count i32) (param $cmds i32) (param $cap i32) (param $consts i32)
    (param $body i32) (param $keys i32) (param $parts i32) (param $partscap i32) (param $max i32) (result i32)
    (local $e i32) (local $rec i32) (local $type i32) (local $typeEnd i32) (local $len i32) (local $ok i32)
    (call $begin (local.get $cmds) (local.get $cap) (local.get $consts) (local.get $body) (local.get $keys) (local.get $parts)
      (local.get $partscap) (local.get $max))
    (global.set $rstate (i32.const 0))
    (global.set $rcount (i32.const 0))
    (global.set $rspoken (i32.const 0))
    (global.set $rcalls (i32.const 0))
    (global.set $rempty (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $e) (local.get $count)))
        (local.set $rec (i32.add (local.get $recs) (i32.shl (local.get $e) (i32.const 6))))
        (local.set $e (i32.add (local.get $e) (i32.const 1)))
        (if (i32.ne (i32.load8_u (i32.load (local.get $rec))) (i32.const 123)) (then (return (i32.const -1))))
        (local.set $type (i32.load offset=4 (local.get $rec)))
        (local.set $typeEnd (i32.load offset=8 (local.get $rec)))
        (local.set $ok (i32.const 0))
        (if (i32.lt_s (local.get $type) (i32.const 0))
          (then (if (i32.ge_s (i32.load offset=12 (local.get $rec)) (i32.const 0)) (then (local.set $ok (call $itemMessage (local.get $rec))))))
          (else
            (local.set $len (i32.sub (local.get $typeEnd) (local.get $type)))
            (if (i32.eq (local.get $len) (i32.const 9))
              (then (if (call $is (local.get $type) (local.get $typeEnd)
                  (v128.const i8x16 0x22 0x6d 0x65 0x73 0x73 0x61 0x67 0x65 0x22 0x00 0x00 0x00 0x00 0x00 0x00 0x00) (i32.const 9))
                (then (local.set $ok (call $itemMessage (local.get $rec)))))))
            (if (i32.eq (local.get $len) (i32.const 15))
              (then (if (call $is (local.get $type) (local.get $typeEnd)
                  (v128.const i8x16 0x22 0x66 0x75 0x6e 0x63 0x74 0x69 0x6f 0x6e 0x5f 0x63 0x61 0x6c 0x6c 0x22 0x00) (i32.const 15))
                (then (local.set $ok (call $itemCall (local.get $rec)))))))
            ;; "function_call_output": 22 bytes, its first sixteen and its last sixteen.
            (if (i32.eq (local.get $len) (i32.const 22))
              (then (if (i32.and
                  (call $is (local.get $type) (i32.add (local.get $type) (i32.const 16))
                    (v128.const i8x16 0x22 0x66 0x75 0x6e 0x63 0x74 0x69 0x6f 0x6e 0x5f 0x63 0x61 0x6c 0x6c 0x5f 0x6f) (i32.const 16))
                  (call $is (i32.sub (local.get $typeEnd) (i32.const 16)) (local.get $typeEnd)
                    (v128.const i8x16 0x69 0x6f 0x6e 0x5f 0x63 0x61 0x6c 0x6c 0x5f 0x6f 0x75 0x74 0x70 0x75 0x74 0x22) (i32.const 16)))
                (then (local.set $ok (call $itemOutput (local.get $rec)))))))
            ;; Reasoning items are left out (items.ts leaves them).
            (if (i32.eq (local.get $len) (i32.const 11))
              (then (local.set $ok (call $is (local.get $type) (local.get $typeEnd)
                (v128.const i8x16 0x22 0x72 0x65 0x61 0x73 0x6f 0x6e 0x69 0x6e 0x67 0x22 0x00 0x00 0x00 0x00 0x00) (i32.const 11)))))))
        (if (i32.eqz (local.get $ok)) (then (return (i32.const -1))))
        (br $next)))
    (if (global.get $rcount)
      (then (if (i32.eqz (call $put (i32.add (i32.const 15) (call $ending)))) (then (return (i32.const -1))))))
    (i32.store (i32.sub (local.get $cmds) (i32.const 8)) (global.get $clen))
    (i32.store (i32.sub (local.get $cmds) (i32.const 4)) (global.get $rspoken))
    (global.get $cw))
)
