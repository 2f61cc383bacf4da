;; Growths after a call are paid for when the caller's block is entered; 9,000 frames
;; deep the guest blocks (sched_yield), and the wasmi call that resumes it returns
;; through every frame, running 8 growths in each that it never pays for. While wasmi's
;; `memory.grow` handler left a host frame each, those 72,000 frames in one call
;; overflowed the host's stack; natively each growth is now a host call (leaving none),
;; so the guest ends normally: every growth of 65535 pages is refused (-1).
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
