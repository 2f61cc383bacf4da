;; More memories than the run may create.
(module
  (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1)
  (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1) (memory 1)
  (memory 1)
  (func (export "_start")))
