;; Four memories that each start at 20 MiB: 80 MiB declared before any code runs.
(module
  (memory 320) (memory 320) (memory 320) (memory 320)
  (func (export "_start")))
