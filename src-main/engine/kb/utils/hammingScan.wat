;; The scan of BinaryIndex over every code: Hamming distances over the first 128 bits (one SIMD
;; load per code, an xor and popcount per query), and the slots under a distance threshold. Built into
;; hammingScanWasm.ts by bin/buildWasm.js.
(module
  (import "env" "memory" (memory 1))

  ;; `n` 16-byte code prefixes start at `prefixes`, back to back; `m` query prefixes start at
  ;; `queries`, back to back. Each code is loaded once for all the queries (one pass over the codes
  ;; for several queries). Query i writes its distances as u16 to `dist` + i × `stride` and counts
  ;; each in its histogram at `hist` + i × 516 (129 i32 counters, zeroed by the caller).
  (func (export "prefixDistances")
    (param $prefixes i32) (param $n i32) (param $queries i32) (param $m i32) (param $dist i32) (param $stride i32) (param $hist i32)
    (local $code v128) (local $sums v128) (local $d i32) (local $end i32) (local $slot i32)
    (local $i i32) (local $q i32) (local $out i32) (local $h i32)
    (local.set $end (i32.add (local.get $dist) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $dist) (local.get $end)))
        (local.set $code (v128.load (local.get $prefixes)))
        (local.set $i (i32.const 0))
        (local.set $q (local.get $queries))
        (local.set $out (local.get $dist))
        (local.set $h (local.get $hist))
        (loop $query
          ;; 16 byte popcounts → 8 → 4 lane sums → one distance.
          (local.set $sums
            (i32x4.extadd_pairwise_i16x8_u
              (i16x8.extadd_pairwise_i8x16_u
                (i8x16.popcnt (v128.xor (local.get $code) (v128.load (local.get $q)))))))
          (local.set $d
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $sums)) (i32x4.extract_lane 1 (local.get $sums)))
              (i32.add (i32x4.extract_lane 2 (local.get $sums)) (i32x4.extract_lane 3 (local.get $sums)))))
          (i32.store16 (local.get $out) (local.get $d))
          (local.set $slot (i32.add (local.get $h) (i32.shl (local.get $d) (i32.const 2))))
          (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
          (local.set $q (i32.add (local.get $q) (i32.const 16)))
          (local.set $out (i32.add (local.get $out) (local.get $stride)))
          (local.set $h (i32.add (local.get $h) (i32.const 516)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $query (i32.lt_u (local.get $i) (local.get $m))))
        (local.set $prefixes (i32.add (local.get $prefixes) (i32.const 16)))
        (local.set $dist (i32.add (local.get $dist) (i32.const 2)))
        (br $next))))

  ;; prefixDistances for exactly 4 queries (at `queries`, back to back), their popcounts summed
  ;; together: the 16 byte counts of each query are narrowed and pairwise added as one vector, so
  ;; one code costs 4 xor and popcounts and 8 shared steps instead of 4 separate reductions.
  (func (export "prefixDistances4")
    (param $prefixes i32) (param $n i32) (param $queries i32) (param $dist i32) (param $stride i32) (param $hist i32)
    (local $code v128) (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128) (local $sums v128)
    (local $d i32) (local $end i32) (local $slot i32) (local $out i32)
    (local.set $q0 (v128.load (local.get $queries)))
    (local.set $q1 (v128.load offset=16 (local.get $queries)))
    (local.set $q2 (v128.load offset=32 (local.get $queries)))
    (local.set $q3 (v128.load offset=48 (local.get $queries)))
    (local.set $end (i32.add (local.get $dist) (i32.shl (local.get $n) (i32.const 1))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $dist) (local.get $end)))
        (local.set $code (v128.load (local.get $prefixes)))
        ;; per query 16 byte counts (≤ 8) → 8 (≤ 16); two queries narrowed into one vector → 8 (≤ 32)
        ;; each; all four narrowed → 8 (≤ 64) → lanes 0..3: the distances of queries 0..3.
        (local.set $sums
          (i32x4.extadd_pairwise_i16x8_u
            (i16x8.extadd_pairwise_i8x16_u
              (i8x16.narrow_i16x8_u
                (i16x8.extadd_pairwise_i8x16_u
                  (i8x16.narrow_i16x8_u
                    (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (v128.xor (local.get $code) (local.get $q0))))
                    (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (v128.xor (local.get $code) (local.get $q1))))))
                (i16x8.extadd_pairwise_i8x16_u
                  (i8x16.narrow_i16x8_u
                    (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (v128.xor (local.get $code) (local.get $q2))))
                    (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (v128.xor (local.get $code) (local.get $q3))))))))))
        (local.set $out (local.get $dist))
        (local.set $d (i32x4.extract_lane 0 (local.get $sums)))
        (i32.store16 (local.get $out) (local.get $d))
        (local.set $slot (i32.add (local.get $hist) (i32.shl (local.get $d) (i32.const 2))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $out (i32.add (local.get $out) (local.get $stride)))
        (local.set $d (i32x4.extract_lane 1 (local.get $sums)))
        (i32.store16 (local.get $out) (local.get $d))
        (local.set $slot (i32.add (local.get $hist) (i32.add (i32.const 516) (i32.shl (local.get $d) (i32.const 2)))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $out (i32.add (local.get $out) (local.get $stride)))
        (local.set $d (i32x4.extract_lane 2 (local.get $sums)))
        (i32.store16 (local.get $out) (local.get $d))
        (local.set $slot (i32.add (local.get $hist) (i32.add (i32.const 1032) (i32.shl (local.get $d) (i32.const 2)))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $out (i32.add (local.get $out) (local.get $stride)))
        (local.set $d (i32x4.extract_lane 3 (local.get $sums)))
        (i32.store16 (local.get $out) (local.get $d))
        (local.set $slot (i32.add (local.get $hist) (i32.add (i32.const 1548) (i32.shl (local.get $d) (i32.const 2)))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $prefixes (i32.add (local.get $prefixes) (i32.const 16)))
        (local.set $dist (i32.add (local.get $dist) (i32.const 2)))
        (br $next))))

  ;; Writes to `out` (i32 each, in slot order) the slots whose u16 distance in `dist` is below
  ;; `threshold`, and the first `ties` slots whose distance equals it, and their distances to
  ;; `outDist` (u16 each, so the next stage reads them in order); returns how many it wrote.
  ;; Few slots qualify (the caller keeps about 1%), so 8 distances are compared at once and a block
  ;; with none at or under the threshold is skipped. The caller pads the distances to a multiple of 8
  ;; with 0xffff (over any threshold).
  (func (export "collect")
    (param $dist i32) (param $n i32) (param $threshold i32) (param $ties i32) (param $out i32) (param $outDist i32) (result i32)
    (local $j i32) (local $d i32) (local $written i32) (local $limit v128) (local $end i32)
    (local.set $limit (i16x8.splat (local.get $threshold)))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (if (v128.any_true (i16x8.le_u (v128.load (i32.add (local.get $dist) (i32.shl (local.get $j) (i32.const 1)))) (local.get $limit)))
          (then
            (local.set $end (i32.add (local.get $j) (i32.const 8)))
            (loop $next
              (local.set $d (i32.load16_u (i32.add (local.get $dist) (i32.shl (local.get $j) (i32.const 1)))))
              (if (i32.or
                    (i32.lt_u (local.get $d) (local.get $threshold))
                    (i32.and (i32.eq (local.get $d) (local.get $threshold)) (i32.gt_s (local.get $ties) (i32.const 0))))
                (then
                  (if (i32.eq (local.get $d) (local.get $threshold))
                    (then (local.set $ties (i32.sub (local.get $ties) (i32.const 1)))))
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 2))) (local.get $j))
                  (i32.store16 (i32.add (local.get $outDist) (i32.shl (local.get $written) (i32.const 1))) (local.get $d))
                  (local.set $written (i32.add (local.get $written) (i32.const 1)))))
              (local.set $j (i32.add (local.get $j) (i32.const 1)))
              (br_if $next (i32.lt_u (local.get $j) (local.get $end)))))
          (else (local.set $j (i32.add (local.get $j) (i32.const 8)))))
        (br $block)))
    (local.get $written)))
