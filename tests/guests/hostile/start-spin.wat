;; A start function that never returns: the limits reach it as they reach `_start`.
(module
  (memory (export "memory") 1)
  (func $init (loop $l (br $l)))
  (start $init)
  (func (export "_start")))
