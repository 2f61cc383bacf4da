;; One memory declared at 4 GiB (65536 pages): more than wasm32 can hold.
(module (memory 65536) (func (export "_start")))
