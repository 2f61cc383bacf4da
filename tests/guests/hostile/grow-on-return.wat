;; NOT in cases.json: it still aborts the process natively (a known gap, see
;; docs/hardening.md). Growths after a call are paid for when the caller's block is
;; entered; 9,000 frames deep the guest blocks (sched_yield), and the wasmi call that
;; resumes it returns through every frame, running 8 growths in each that it never pays
;; for: 72,000 host stack frames in one call, whatever fuel that call is given.
(module
  (import "wasi_snapshot_preview1" "sched_yield" (func $yield (result i32)))
  (memory (export "memory") 1)
  (func $f (param $n i32)
    (if (local.get $n)
      (then (call $f (i32.sub (local.get $n) (i32.const 1))))
      (else (drop (call $yield))))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535)))
    (drop (memory.grow (i32.const 65535))))
  (func (export "_start") (call $f (i32.const 9000))))
