;; memory.grow past the memory's declared maximum: refused (-1) before the limiter is
;; asked, and left a host stack frame natively like any growth.
(module
  (memory (export "memory") 1 1)
  (func (export "_start")
    (loop $l
      (drop (memory.grow (i32.const 1)))
      (br $l))))
