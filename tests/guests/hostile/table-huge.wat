;; A table declared with five million elements.
(module (table 5000000 funcref) (func (export "_start")))
