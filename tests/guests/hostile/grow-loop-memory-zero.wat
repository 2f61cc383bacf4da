;; memory.grow by 0 from a variable (a constant 0 becomes memory.size): it succeeds
;; without asking the limiter, and left a host stack frame natively like any growth.
(module
  (memory (export "memory") 1)
  (global $zero (mut i32) (i32.const 0))
  (func (export "_start")
    (loop $l
      (drop (memory.grow (global.get $zero)))
      (br $l))))
