;; A loop of table.grow that fails (past the table's maximum): natively its handler is
;; not a tail call either, so each left a host stack frame until wasmi returned.
(module
  (memory (export "memory") 1)
  (table $t 1 1 funcref)
  (func (export "_start")
    (loop $l
      (drop (table.grow $t (ref.null func) (i32.const 1)))
      (br $l))))
