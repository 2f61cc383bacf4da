//! Arguments, clocks, randomness, sockets, poll, signals, exit, faults and bad values.

use super::{DIR, FILE_RW, make_file, open};
use crate::sys::{self, Subscription};
use crate::{code, res};
use wasi::*;

pub(super) fn args_env() {
    let args: Vec<String> = std::env::args().collect();
    println!("argc={}", args.len());
    for (i, arg) in args.iter().enumerate() {
        println!("argv[{i}]={arg:?}");
    }
    let mut sizes = [0u32; 2];
    let c = unsafe {
        sys::unchecked::args_sizes_get(sys::addr_of(&mut sizes[0]), sys::addr_of(&mut sizes[1]))
    };
    code(&format!("args_sizes_get = ({}, {})", sizes[0], sizes[1]), c);
    let c = unsafe {
        sys::unchecked::environ_sizes_get(sys::addr_of(&mut sizes[0]), sys::addr_of(&mut sizes[1]))
    };
    code(
        &format!("environ_sizes_get = ({}, {})", sizes[0], sizes[1]),
        c,
    );
    for (key, value) in std::env::vars() {
        println!("env {key}={value:?}");
    }
}

pub(super) fn clock() {
    for id in 0..4u32 {
        res(
            &format!("clock_res_get({id})"),
            sys::clock_res_get(id),
            |r| {
                if *r > 0 {
                    "positive".into()
                } else {
                    "zero".into()
                }
            },
        );
        res(
            &format!("clock_time_get({id}, 0)"),
            sys::clock_time_get(id, 0),
            |_| String::new(),
        );
    }
    let a = sys::clock_time_get(1, 0).unwrap_or(0);
    let b = sys::clock_time_get(1, 1).unwrap_or(0);
    println!("monotonic does not go back: {}", b >= a);
    let now = sys::clock_time_get(0, 1_000_000).unwrap_or(0);
    println!("realtime after 2020: {}", now > 1_577_836_800_000_000_000);
}

pub(super) fn random() {
    let mut empty = [0u8; 0];
    code("random_get(0 bytes)", sys::random_get(&mut empty));
    let mut a = [0u8; 64];
    let mut b = [0u8; 64];
    code("random_get(64 bytes)", sys::random_get(&mut a));
    sys::random_get(&mut b);
    println!("two draws differ: {}", a != b);
    let mut big = vec![0u8; 1 << 20];
    code("random_get(1 MiB)", sys::random_get(&mut big));
    println!("1 MiB not all zero: {}", big.iter().any(|&x| x != 0));
}

pub(super) fn sock() {
    make_file("f", b"abc");
    let file = open("file", DIR, 0, "f", 0, FILE_RW, 0).expect("open file");
    for fd in [99, DIR, 0, 1, file] {
        for how in [SDFLAGS_RD, SDFLAGS_WR, SDFLAGS_RD | SDFLAGS_WR, 0] {
            code(
                &format!("sock_shutdown({fd}, {how})"),
                sys::sock_shutdown(fd, how),
            );
        }
        res(
            &format!("sock_accept({fd})"),
            sys::sock_accept(fd, 0),
            |fd| format!("fd={fd}"),
        );
        res(&format!("sock_recv({fd})"), sys::sock_recv(fd, 4, 0), |r| {
            format!("{r:?}")
        });
        res(&format!("sock_send({fd})"), sys::sock_send(fd, b"x"), |n| {
            n.to_string()
        });
    }
    sys::fd_close(file);
    sys::path_unlink_file(DIR, "f");
}

pub(super) fn poll() {
    res(
        "poll_oneoff(no subscriptions)",
        sys::poll_oneoff(&[]),
        |e| format!("{e:?}"),
    );
    let ev = |e: &Vec<sys::Event>| {
        e.iter()
            .map(|(u, err, ty, n, f)| {
                format!(
                    "[user={u} {} type={ty} nbytes={n} flags={f}]",
                    sys::errname(i32::from(*err))
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    res(
        "poll clock 1 ms",
        sys::poll_oneoff(&[Subscription::clock(7, 1, 1_000_000, 0, 0)]),
        ev,
    );
    res(
        "poll clock abstime 0",
        sys::poll_oneoff(&[Subscription::clock(
            8,
            1,
            0,
            0,
            SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
        )]),
        ev,
    );
    res(
        "poll realtime abstime 0",
        sys::poll_oneoff(&[Subscription::clock(
            9,
            0,
            0,
            0,
            SUBCLOCKFLAGS_SUBSCRIPTION_CLOCK_ABSTIME,
        )]),
        ev,
    );
    res(
        "poll clock id 9",
        sys::poll_oneoff(&[Subscription::clock(10, 9, 0, 0, 0)]),
        ev,
    );
    res(
        "poll cputime clock",
        sys::poll_oneoff(&[Subscription::clock(11, 2, 1000, 0, 0)]),
        ev,
    );
    make_file("f", b"0123456789");
    let fd = open("file", DIR, 0, "f", 0, FILE_RW, 0).expect("open");
    res(
        "poll fd_read file",
        sys::poll_oneoff(&[Subscription::fd(1, 1, fd)]),
        ev,
    );
    sys::fd_seek(fd, 4, 0).ok();
    res(
        "poll fd_read file at 4",
        sys::poll_oneoff(&[Subscription::fd(1, 1, fd)]),
        ev,
    );
    res(
        "poll fd_write file",
        sys::poll_oneoff(&[Subscription::fd(2, 2, fd)]),
        ev,
    );
    res(
        "poll fd_write stdout",
        sys::poll_oneoff(&[Subscription::fd(3, 2, 1)]),
        ev,
    );
    res(
        "poll fd_read bad fd",
        sys::poll_oneoff(&[Subscription::fd(4, 1, 99)]),
        ev,
    );
    res(
        "poll fd_read dir",
        sys::poll_oneoff(&[Subscription::fd(5, 1, DIR)]),
        ev,
    );
    res(
        "poll fd_read stdin (empty)",
        sys::poll_oneoff(&[Subscription::fd(6, 1, 0)]),
        ev,
    );
    res(
        "poll bad tag",
        sys::poll_oneoff(&[Subscription::fd(12, 3, fd)]),
        ev,
    );
    res(
        "poll file and clock",
        sys::poll_oneoff(&[
            Subscription::fd(13, 1, fd),
            Subscription::clock(14, 1, 10_000_000_000, 0, 0),
        ]),
        ev,
    );
    sys::fd_close(fd);
    sys::path_unlink_file(DIR, "f");
}

pub(super) fn misc() {
    code("sched_yield", sys::sched_yield());
    for signal in [0, 15, 9] {
        code(&format!("proc_raise({signal})"), sys::proc_raise(signal));
    }
    println!("exiting with 7");
    sys::proc_exit(7);
}

/// Calls with addresses outside memory. Each case is its own run: a host may trap.
pub(super) fn fault(case: &str) -> bool {
    use sys::unchecked as raw;
    let bad = sys::BAD_PTR;
    let mut out = [0u64; 2];
    let out_ptr = sys::addr_of(out.as_mut_ptr());
    let name = "f";
    let result = unsafe {
        match case {
            "args" => raw::args_sizes_get(bad, out_ptr),
            "random" => raw::random_get(bad, 16),
            "random_span" => raw::random_get(out_ptr, i32::MAX),
            "clock_out" => raw::clock_time_get(0, 0, bad),
            "fdstat_out" => raw::fd_fdstat_get(1, bad),
            "write_iovs" => raw::fd_write(1, bad, 1, out_ptr),
            "write_buf" => {
                let iov = [bad as u32, 4];
                raw::fd_write(1, sys::addr_of(iov.as_ptr()), 1, out_ptr)
            }
            "write_partial" => {
                // The first iovec is good, the second points outside memory.
                let text = b"first\n";
                let iovs = [
                    sys::addr_of(text.as_ptr()) as u32,
                    text.len() as u32,
                    bad as u32,
                    4,
                ];
                raw::fd_write(1, sys::addr_of(iovs.as_ptr()), 2, out_ptr)
            }
            "write_nwritten" => {
                let text = b"text\n";
                let iov = [sys::addr_of(text.as_ptr()) as u32, text.len() as u32];
                raw::fd_write(1, sys::addr_of(iov.as_ptr()), 1, bad)
            }
            "path" => raw::path_create_directory(3, bad, 4),
            "path_len" => raw::path_create_directory(3, sys::addr_of(name.as_ptr()), i32::MAX),
            "path_utf8" => {
                let invalid = [0xffu8, 0xfe];
                raw::path_create_directory(3, sys::addr_of(invalid.as_ptr()), 2)
            }
            "open_out" => raw::path_open(3, 0, sys::addr_of(name.as_ptr()), 1, 1, 0, 0, 0, bad),
            "readdir_buf" => raw::fd_readdir(3, bad, 64, 0, out_ptr),
            "poll_in" => raw::poll_oneoff(bad, out_ptr, 1, out_ptr),
            "prestat_name" => raw::fd_prestat_dir_name(3, bad, 8),
            _ => return false,
        }
    };
    println!(
        "fault {case} -> {}",
        if result == 0 {
            "ok".into()
        } else {
            sys::errname(result)
        }
    );
    true
}

pub(super) fn as_result(code: i32) -> Result<(), i32> {
    if code == 0 { Ok(()) } else { Err(code) }
}

/// Calls with a value outside an enum or flags type. Each case is its own run: a host may trap.
pub(super) fn bad(case: &str) -> bool {
    let result = match case {
        "clock_id" => sys::clock_time_get(4, 0).map(|_| ()),
        "clock_res_id" => sys::clock_res_get(99).map(|_| ()),
        "rights" => sys::path_open(DIR, 0, ".", OFLAGS_DIRECTORY, 1 << 30, 0, 0).map(|_| ()),
        "inheriting" => sys::path_open(DIR, 0, ".", OFLAGS_DIRECTORY, 0, 1 << 40, 0).map(|_| ()),
        "fstflags" => as_result(sys::path_filestat_set_times(DIR, 0, ".", 1, 1, 1 << 4)),
        "sdflags" => as_result(sys::sock_shutdown(1, 4)),
        "advice" => as_result(sys::fd_advise(DIR, 0, 0, 6)),
        "whence" => sys::fd_seek(1, 0, 3).map(|_| ()),
        "fdflags" => as_result(sys::fd_fdstat_set_flags(1, 1 << 5)),
        "oflags" => sys::path_open(DIR, 0, "g", 1 << 4, RIGHTS_FD_READ, 0, 0).map(|_| ()),
        "lookupflags" => sys::path_open(DIR, 2, ".", OFLAGS_DIRECTORY, 0, 0, 0).map(|_| ()),
        "signal" => as_result(sys::proc_raise(200)),
        "subscription_tag" => sys::poll_oneoff(&[Subscription::fd(1, 3, 1)]).map(|_| ()),
        "poll_clock_id" => sys::poll_oneoff(&[Subscription::clock(1, 9, 0, 0, 0)]).map(|_| ()),
        "subclockflags" => sys::poll_oneoff(&[Subscription::clock(1, 1, 0, 0, 2)]).map(|_| ()),
        _ => return false,
    };
    res(&format!("bad {case}"), result, |_| String::new());
    true
}
