;; A stream's plain text deltas written as another format's events, at native speed, over a
;; copy of the stream's lines in this module's memory (src/lib/delta-events.ts).
;; `events(...)` reads the lines from `in` to `inEnd` (split at 0x0a, the last without its
;; newline) and, for each `data:` line that is the stream's frame around a text literal (the
;; frame a chat stream's first chunk teaches formats/chat-deltas.ts, or an Anthropic text block's:
;; `open`, a string literal as JSON.stringify writes it, `close`, the obfuscation member when the
;; frame has one, trailing space), writes the event
;; `pre [seq] mid literal post` at `out` (nothing for an empty text but with flag 8) and, with KEEP_TEXT, the
;; literal's inside at `text`. Lines that are not `data:` lines are skipped, as the translators
;; skip them. It stops at the first data line that is anything else and returns where that line
;; starts (past inEnd when it read them all); out's and text's ends and the next sequence number
;; are left at 0, 4 and 8. The grammar is ChatDeltas.match()'s fast path and canonicalStringEnd's
;; (lib/json-literal.ts), which test/formats/chat-deltas.test.ts holds to the full parse.
;; Built into src/lib/wasm/delta-events.ts by scripts/build-wasm.js.
(module
  (memory (export "memory") 1)
  ;; The obfuscation member's key, which an obfuscated frame's chunks have after `close`.
  (data (i32.const 16) ",\"obfuscation\":")
  ;; Whether the n bytes at a and at b are the same: sixteen at a time, the last sixteen (or
  ;; eight, or four) read where they end, over bytes already compared, and never a byte outside
  ;; the n. A byte loop for the tail cost ~8 instructions a byte, and the open frame (75 bytes in
  ;; an Anthropic stream) is compared on every line (callgrind, gateway-anthropic-stream).
  (func $same (param $a i32) (param $b i32) (param $n i32) (result i32)
    (if (i32.ge_u (local.get $n) (i32.const 16))
      (then
        (loop $vector
          (if (v128.any_true (v128.xor (v128.load align=1 (local.get $a)) (v128.load align=1 (local.get $b))))
            (then (return (i32.const 0))))
          (local.set $a (i32.add (local.get $a) (i32.const 16)))
          (local.set $b (i32.add (local.get $b) (i32.const 16)))
          (local.set $n (i32.sub (local.get $n) (i32.const 16)))
          (br_if $vector (i32.gt_u (local.get $n) (i32.const 16))))
        ;; 0 to 16 bytes are left: the sixteen that end where they do.
        (local.set $a (i32.add (local.get $a) (local.get $n)))
        (local.set $b (i32.add (local.get $b) (local.get $n)))
        (return (i32.eqz (v128.any_true (v128.xor (v128.load offset=0 align=1 (i32.sub (local.get $a) (i32.const 16)))
                                                  (v128.load offset=0 align=1 (i32.sub (local.get $b) (i32.const 16)))))))))
    (if (i32.ge_u (local.get $n) (i32.const 8))
      (then
        (return (i32.and
          (i64.eq (i64.load align=1 (local.get $a)) (i64.load align=1 (local.get $b)))
          (i64.eq (i64.load align=1 (i32.sub (i32.add (local.get $a) (local.get $n)) (i32.const 8)))
                  (i64.load align=1 (i32.sub (i32.add (local.get $b) (local.get $n)) (i32.const 8))))))))
    (if (i32.ge_u (local.get $n) (i32.const 4))
      (then
        (return (i32.and
          (i32.eq (i32.load align=1 (local.get $a)) (i32.load align=1 (local.get $b)))
          (i32.eq (i32.load align=1 (i32.sub (i32.add (local.get $a) (local.get $n)) (i32.const 4)))
                  (i32.load align=1 (i32.sub (i32.add (local.get $b) (local.get $n)) (i32.const 4))))))))
    (block $done
      (loop $byte
        (br_if $done (i32.eqz (local.get $n)))
        (if (i32.ne (i32.load8_u (local.get $a)) (i32.load8_u (local.get $b))) (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 1)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $byte)))
    (i32.const 1))
  ;; Copies n bytes from src to dst sixteen at a time, so it may write up to fifteen bytes past
  ;; dst + n (the next piece writes over them) and read as many past src + n; returns dst + n.
  ;; Short pieces in a loop where memory.copy is a call out of the module each, ~100 instructions
  ;; (callgrind, gateway-responses-stream).
  (func $copy (param $dst i32) (param $src i32) (param $n i32) (result i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $done
      (loop $vector
        (br_if $done (i32.ge_s (local.get $dst) (local.get $end)))
        (v128.store align=1 (local.get $dst) (v128.load align=1 (local.get $src)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (br $vector)))
    (local.get $end))
  ;; The offset of the first 0x0a from i, or end.
  (func $lineEnd (param $i i32) (param $end i32) (result i32)
    (local $m i32)
    (block $bytes
      (loop $vector
        (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
        (local.set $m (i8x16.bitmask (i8x16.eq (v128.load align=1 (local.get $i)) (i8x16.splat (i32.const 10)))))
        (if (local.get $m) (then (return (i32.add (local.get $i) (i32.ctz (local.get $m))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $vector)))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (br_if $done (i32.eq (i32.load8_u (local.get $i)) (i32.const 10)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (local.get $i))
  ;; canonicalStringEnd: the offset past the closing quote of the literal opening at i, if it is
  ;; written as JSON.stringify writes it (bytes from 0x20 up, the short escapes) and closes
  ;; before end; else -1. Sixteen bytes at a time while none is a quote, a backslash or below 0x20.
  (func $stringEnd (param $i i32) (param $end i32) (result i32)
    (local $v v128) (local $m i32) (local $c i32)
    (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 34)) (then (return (i32.const -1))))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (loop $next
      (block $bytes
        (loop $vector
          (br_if $bytes (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
          (local.set $v (v128.load align=1 (local.get $i)))
          (local.set $m (i8x16.bitmask (v128.or
            (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 34)))
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 92))))
            (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32))))))
          (if (i32.eqz (local.get $m))
            (then
              (local.set $i (i32.add (local.get $i) (i32.const 16)))
              (br $vector)))
          (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))))
      (if (i32.ge_u (local.get $i) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 34)) (then (return (i32.add (local.get $i) (i32.const 1)))))
      (if (i32.lt_u (local.get $c) (i32.const 32)) (then (return (i32.const -1))))
      (if (i32.eq (local.get $c) (i32.const 92))
        (then
          (if (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u offset=1 (local.get $i)))
          ;; " \ b f n r t
          (if (i32.eqz (i32.or
                (i32.or (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
                        (i32.or (i32.eq (local.get $c) (i32.const 98)) (i32.eq (local.get $c) (i32.const 102))))
                (i32.or (i32.or (i32.eq (local.get $c) (i32.const 110)) (i32.eq (local.get $c) (i32.const 114)))
                        (i32.eq (local.get $c) (i32.const 116)))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 2)))
          (br $next)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next))
    (i32.const -1))
  ;; Writes n (not negative) in decimal at w; returns the offset after it.
  (func $decimal (param $n i32) (param $w i32) (result i32)
    (local $end i32) (local $k i32)
    (local.set $k (local.get $n))
    (local.set $end (i32.add (local.get $w) (i32.const 1)))
    (block $counted
      (loop $count
        (br_if $counted (i32.lt_u (local.get $k) (i32.const 10)))
        (local.set $k (i32.div_u (local.get $k) (i32.const 10)))
        (local.set $end (i32.add (local.get $end) (i32.const 1)))
        (br $count)))
    (local.set $w (local.get $end))
    (loop $digit
      (local.set $w (i32.sub (local.get $w) (i32.const 1)))
      (i32.store8 (local.get $w) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
      (local.set $n (i32.div_u (local.get $n) (i32.const 10)))
      (br_if $digit (local.get $n)))
    (local.get $end))
  ;; `setup` holds open, close, pre, mid and post, one after another. flags: 1 the event has the
  ;; sequence number after pre (counted from seq), 2 keep the texts, 4 the frame is obfuscated,
  ;; 8 an empty text has its event too.
  (func (export "events") (param $setup i32) (param $openLen i32) (param $closeLen i32) (param $preLen i32)
    (param $midLen i32) (param $postLen i32) (param $flags i32) (param $in i32) (param $inEnd i32)
    (param $out i32) (param $text i32) (param $seq i32) (result i32)
    (local $line i32) (local $end i32) (local $at i32) (local $lit i32) (local $to i32) (local $e i32) (local $c i32)
    (local $n i32) (local $templates i32)
    (local.set $templates (i32.add (local.get $setup) (i32.add (local.get $openLen) (local.get $closeLen))))
    (local.set $line (local.get $in))
    (block $stop
      (loop $next
        (br_if $stop (i32.gt_u (local.get $line) (local.get $inEnd)))
        ;; A data line is matched up to its newline, which ends it; only another line is searched
        ;; for its end. The pieces a data line is matched against hold no newline, and a string
        ;; literal stops at one (a control character), so reading them bounded by inEnd stays in
        ;; the line. Searching every line's end first was ~150 instructions a delta (callgrind).
        ;; Not a data line ("data:" is 0x61746164 read little-endian, then ':'): skipped.
        (if (i32.or
              (i32.gt_u (i32.add (local.get $line) (i32.const 5)) (local.get $inEnd))
              (i32.or
                (i32.ne (i32.load align=1 (local.get $line)) (i32.const 0x61746164))
                (i32.ne (i32.load8_u offset=4 (local.get $line)) (i32.const 58))))
          (then
            (local.set $line (i32.add (call $lineEnd (local.get $line) (local.get $inEnd)) (i32.const 1)))
            (br $next)))
        (local.set $at (i32.add (local.get $line) (i32.const 5)))
        (if (i32.and (i32.lt_u (local.get $at) (local.get $inEnd)) (i32.eq (i32.load8_u (local.get $at)) (i32.const 32)))
          (then (local.set $at (i32.add (local.get $at) (i32.const 1)))))
        (br_if $stop (i32.gt_u (i32.add (local.get $at) (local.get $openLen)) (local.get $inEnd)))
        (br_if $stop (i32.eqz (call $same (local.get $at) (local.get $setup) (local.get $openLen))))
        (local.set $lit (i32.add (local.get $at) (local.get $openLen)))
        (local.set $to (call $stringEnd (local.get $lit) (local.get $inEnd)))
        (br_if $stop (i32.lt_s (local.get $to) (i32.const 0)))
        (br_if $stop (i32.gt_u (i32.add (local.get $to) (local.get $closeLen)) (local.get $inEnd)))
        (br_if $stop (i32.eqz (call $same (local.get $to) (i32.add (local.get $setup) (local.get $openLen)) (local.get $closeLen))))
        (local.set $e (i32.add (local.get $to) (local.get $closeLen)))
        (if (i32.and (local.get $flags) (i32.const 4))
          (then
            (br_if $stop (i32.gt_u (i32.add (local.get $e) (i32.const 15)) (local.get $inEnd)))
            (br_if $stop (i32.eqz (call $same (local.get $e) (i32.const 16) (i32.const 15))))
            (local.set $e (call $stringEnd (i32.add (local.get $e) (i32.const 15)) (local.get $inEnd)))
            (br_if $stop (i32.lt_s (local.get $e) (i32.const 0)))
            (br_if $stop (i32.ge_u (local.get $e) (local.get $inEnd)))
            (br_if $stop (i32.ne (i32.load8_u (local.get $e)) (i32.const 125)))
            (local.set $e (i32.add (local.get $e) (i32.const 1)))))
        ;; What JSON.parse reads past after a value on one line: space, tab, carriage return; then
        ;; the newline (or inEnd) ends the line.
        (block $ended
          (loop $space
            (br_if $ended (i32.ge_u (local.get $e) (local.get $inEnd)))
            (local.set $c (i32.load8_u (local.get $e)))
            (br_if $ended (i32.eq (local.get $c) (i32.const 10)))
            (br_if $stop (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 13)))
                                          (i32.eq (local.get $c) (i32.const 9)))))
            (local.set $e (i32.add (local.get $e) (i32.const 1)))
            (br $space)))
        (local.set $end (local.get $e))
        (local.set $n (i32.sub (local.get $to) (local.get $lit)))
        ;; An empty text ("") writes nothing, unless flag 8 says the events of empty texts are written too.
        (if (i32.or (i32.gt_u (local.get $n) (i32.const 2)) (i32.and (local.get $flags) (i32.const 8)))
          (then
            (local.set $out (call $copy (local.get $out) (local.get $templates) (local.get $preLen)))
            (if (i32.and (local.get $flags) (i32.const 1))
              (then
                (local.set $out (call $decimal (local.get $seq) (local.get $out)))
                (local.set $seq (i32.add (local.get $seq) (i32.const 1)))))
            (local.set $out (call $copy (local.get $out) (i32.add (local.get $templates) (local.get $preLen)) (local.get $midLen)))
            (local.set $out (call $copy (local.get $out) (local.get $lit) (local.get $n)))
            (local.set $out (call $copy (local.get $out) (i32.add (local.get $templates) (i32.add (local.get $preLen) (local.get $midLen))) (local.get $postLen)))
            (if (i32.and (local.get $flags) (i32.const 2))
              (then
                (local.set $text (call $copy (local.get $text) (i32.add (local.get $lit) (i32.const 1)) (i32.sub (local.get $n) (i32.const 2))))))))
        (local.set $line (i32.add (local.get $end) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 0) (local.get $out))
    (i32.store (i32.const 4) (local.get $text))
    (i32.store (i32.const 8) (local.get $seq))
    (local.get $line))
)
