//! WASI preview1 conformance guest. `wasi_conform SECTION` runs one section of calls against
//! the preopened, empty, writable directory at fd 3 and prints one line per call: what was
//! asked, then `ok` (with what came back) or the errno's name. Nothing host-specific is
//! printed (no inode numbers, devices or current times), so the output recorded from wasmtime
//! is the expected output for any WASI host. See README.md for the sections.

mod sections;
mod sys;

use sys::errname;

/// Prints `label -> ok` or `label -> ERRNO`.
pub fn code(label: &str, code: i32) {
    if code == 0 {
        println!("{label} -> ok");
    } else {
        println!("{label} -> {}", errname(code));
    }
}

/// Prints `label -> ok DETAIL` or `label -> ERRNO`.
pub fn res<T>(label: &str, result: Result<T, i32>, detail: impl FnOnce(&T) -> String) -> Option<T> {
    match result {
        Ok(value) => {
            let text = detail(&value);
            if text.is_empty() {
                println!("{label} -> ok");
            } else {
                println!("{label} -> ok {text}");
            }
            Some(value)
        }
        Err(code) => {
            println!("{label} -> {}", errname(code));
            None
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(section) = args.get(1) else {
        eprintln!("usage: wasi_conform SECTION [ARG...]");
        std::process::exit(2);
    };
    if !sections::run(section, &args[2..]) {
        eprintln!("wasi_conform: unknown section {section}");
        std::process::exit(2);
    }
}
