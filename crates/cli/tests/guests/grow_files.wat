;; The issue 19 attack: grow four files to 1 GiB each without writing a byte, files 1
;; and 2 with fd_filestat_set_size, 3 and 4 with fd_allocate. Prints `fN:EE` (the WASI
;; errno of the growth, two digits; 00 = it grew) per file, then waits for stdin's end
;; so that the test can read the process's peak memory while it is still alive.
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size"
    (func $set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_allocate"
    (func $allocate (param i32 i64 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write"
    (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read"
    (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0: the names; 48: the line printed
  (data (i32.const 0) "f1f2f3f4")
  (data (i32.const 48) "fN:EE\n")
  (func (export "_start")
    (local $i i32) (local $fd i32) (local $errno i32)
    (loop $each
      ;; path_open(dirfd 3 = "/", follow, name, len 2, O_CREAT, all rights) -> fd at 16
      (local.set $errno
        (call $path_open (i32.const 3) (i32.const 1)
          (i32.mul (local.get $i) (i32.const 2)) (i32.const 2)
          (i32.const 1) (i64.const 0x1fffffff) (i64.const 0x1fffffff) (i32.const 0)
          (i32.const 16)))
      (if (i32.eqz (local.get $errno))
        (then
          (local.set $fd (i32.load (i32.const 16)))
          (local.set $errno
            (if (result i32) (i32.lt_u (local.get $i) (i32.const 2))
              (then (call $set_size (local.get $fd) (i64.const 0x40000000)))
              (else (call $allocate (local.get $fd) (i64.const 0) (i64.const 0x40000000)))))))
      (i32.store8 (i32.const 49) (i32.add (i32.const 0x31) (local.get $i)))
      (i32.store8 (i32.const 51) (i32.add (i32.const 0x30) (i32.div_u (local.get $errno) (i32.const 10))))
      (i32.store8 (i32.const 52) (i32.add (i32.const 0x30) (i32.rem_u (local.get $errno) (i32.const 10))))
      ;; iovec at 32: {48, 6}; written count at 40
      (i32.store (i32.const 32) (i32.const 48))
      (i32.store (i32.const 36) (i32.const 6))
      (drop (call $fd_write (i32.const 1) (i32.const 32) (i32.const 1) (i32.const 40)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 4))))
    ;; read stdin until its end: iovec at 64 = {128, 64}; count at 72
    (i32.store (i32.const 64) (i32.const 128))
    (i32.store (i32.const 68) (i32.const 64))
    (loop $drain
      (i32.store (i32.const 72) (i32.const 0))
      (drop (call $fd_read (i32.const 0) (i32.const 64) (i32.const 1) (i32.const 72)))
      (br_if $drain (i32.load (i32.const 72))))))
