;; The rest of a JSON string, skipped at native speed: `skip(i, n)` reads memory from offset i
;; (just past the opening quote) to n and returns the offset just past the closing quote, or -1
;; when the string is not valid JSON before n (a control byte, a bad escape, no closing quote).
;; Sixteen bytes at a time while none is a quote, a backslash or a byte below 0x20; byte by byte
;; around escapes. UTF-8 is checked elsewhere (node:buffer isUtf8), as JSON.parse of decoded text
;; would see it. Built into src/lib/wasm/json-string.ts by scripts/build-wasm.js.
(module
  (memory (export "memory") 1)
  (func $hex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 6))))
  (func (export "skip") (param $i i32) (param $n i32) (result i32)
    (local $v v128) (local $m i32) (local $c i32)
    (block $fail
      (loop $next
        (block $bytes
          (loop $vector
            (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
            (local.set $v (v128.load align=1 (local.get $i)))
            (local.set $m (i8x16.bitmask (v128.or
              (v128.or
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
                (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))
              (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32))))))
            (if (local.get $m)
              (then
                (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
                (br $bytes)))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
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
                (local.set $i (i32.add (local.get $i) (i32.const 6)))
                (br $next)))
            ;; " \ / b f n r t
            (br_if $fail (i32.eqz (i32.or (i32.or (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
                                          (i32.or (i32.eq (local.get $c) (i32.const 47)) (i32.eq (local.get $c) (i32.const 98))))
                                  (i32.or (i32.or (i32.eq (local.get $c) (i32.const 102)) (i32.eq (local.get $c) (i32.const 110)))
                                          (i32.or (i32.eq (local.get $c) (i32.const 114)) (i32.eq (local.get $c) (i32.const 116)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br $next)))
        ;; Any other byte that stopped the vector is a control byte; a plain byte is passed one at a time near the end.
        (br_if $fail (i32.lt_u (local.get $c) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const -1)))
