;; A loop of memory.grow that fails. Natively each memory.grow executed left a host
;; stack frame until wasmi returned (its handler is not a tail call): ~47,000 of them
;; overflowed the host's stack and aborted the process. Now each costs 255 fuel and one
;; wasmi call gets at most 2^20 fuel, so the frames stay bounded; the fuel limit ends it.
(module
  (memory (export "memory") 1)
  (func (export "_start")
    (loop $l
      (drop (memory.grow (i32.const 65535)))
      (br $l))))
