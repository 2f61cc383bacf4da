;; Four memories, each grown 1 MiB at a time until memory.grow fails, then a trap:
;; the memory limit covers all four together.
(module
  (memory $m0 1) (memory $m1 1) (memory $m2 1) (memory $m3 1)
  (export "memory" (memory $m0))
  (func (export "_start")
    (loop $a (br_if $a (i32.ne (memory.grow $m0 (i32.const 16)) (i32.const -1))))
    (loop $b (br_if $b (i32.ne (memory.grow $m1 (i32.const 16)) (i32.const -1))))
    (loop $c (br_if $c (i32.ne (memory.grow $m2 (i32.const 16)) (i32.const -1))))
    (loop $d (br_if $d (i32.ne (memory.grow $m3 (i32.const 16)) (i32.const -1))))
    unreachable))
