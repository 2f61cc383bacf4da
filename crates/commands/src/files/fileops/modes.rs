//! File modes as `chmod` and `mkdir -m` take them: octal (`755`) or symbolic
//! (`u+x,go-w`, `a=r`, `g=u`, `+X`), applied the way gnulib's `modechange` does,
//! with the umask limiting changes that name no `ugoa`.

/// The umask every sandbox process has.
pub(crate) const UMASK: u32 = 0o022;

const SUID: u32 = 0o4000;
const SGID: u32 = 0o2000;
const STICKY: u32 = 0o1000;
const USER: u32 = 0o700;
const GROUP: u32 = 0o070;
const OTHER: u32 = 0o007;
const READ: u32 = 0o444;
const WRITE: u32 = 0o222;
const EXEC: u32 = 0o111;
const ALL: u32 = 0o7777;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    /// The bits in `value`.
    Ordinary,
    /// The bits the file has in the class `value` names (`g=u`).
    CopyExisting,
    /// `X`: execute bits if the file is a directory or already has one.
    ExecIfAnyExec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    op: char,
    flag: Flag,
    affected: u32,
    value: u32,
    mentioned: u32,
}

/// A parsed mode, ready to apply to files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModeChange {
    changes: Vec<Change>,
}

impl ModeChange {
    /// Parses `text` as chmod does; `None` when it is not a mode.
    pub fn parse(text: &str) -> Option<Self> {
        if text.starts_with(|c: char| ('0'..='7').contains(&c)) {
            return parse_octal(text);
        }
        parse_symbolic(text.as_bytes())
    }

    /// The mode `old` becomes, for a directory if `dir`, under `umask`.
    pub fn apply(&self, old: u32, dir: bool, umask: u32) -> u32 {
        self.apply_with_bits(old, dir, umask).0
    }

    /// [`ModeChange::apply`], and which bits the change set or cleared on purpose
    /// (gnulib's `mode_bits`).
    pub fn apply_with_bits(&self, old: u32, dir: bool, umask: u32) -> (u32, u32) {
        let mut mode = old & ALL;
        let mut mode_bits = 0;
        for change in &self.changes {
            let omit = if dir { SUID | SGID } else { 0 } & !change.mentioned;
            let mut value = change.value;
            match change.flag {
                Flag::Ordinary => {}
                Flag::CopyExisting => {
                    value &= mode;
                    value |= spread(value & READ, READ)
                        | spread(value & WRITE, WRITE)
                        | spread(value & EXEC, EXEC);
                }
                Flag::ExecIfAnyExec => {
                    if mode & EXEC != 0 || dir {
                        value |= EXEC;
                    }
                }
            }
            let limit = if change.affected != 0 {
                change.affected
            } else {
                !umask
            };
            value &= limit & !omit;
            match change.op {
                '=' => {
                    let preserved = if change.affected != 0 {
                        !change.affected
                    } else {
                        0
                    } | omit;
                    mode_bits |= ALL & !preserved;
                    mode = (mode & preserved) | value;
                }
                '+' => {
                    mode_bits |= value;
                    mode |= value;
                }
                _ => {
                    mode_bits |= value;
                    mode &= !value;
                }
            }
        }
        (mode & ALL, mode_bits & ALL)
    }
}

/// All of `class` if any bit of it is set.
fn spread(bits: u32, class: u32) -> u32 {
    if bits != 0 { class } else { 0 }
}

fn parse_octal(text: &str) -> Option<ModeChange> {
    let mut mode: u32 = 0;
    for c in text.chars() {
        let digit = c.to_digit(8)?;
        mode = mode * 8 + digit;
        if mode > ALL {
            return None;
        }
    }
    // Up to four digits leave a directory's set-id bits alone unless they are set.
    let mentioned = if text.len() < 5 {
        (mode & (SUID | SGID)) | STICKY | 0o777
    } else {
        ALL
    };
    Some(ModeChange {
        changes: vec![Change {
            op: '=',
            flag: Flag::Ordinary,
            affected: ALL,
            value: mode,
            mentioned,
        }],
    })
}

/// `[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0-7]+`, comma separated.
fn parse_symbolic(text: &[u8]) -> Option<ModeChange> {
    let mut changes = Vec::new();
    let mut at = 0;
    loop {
        let mut affected = 0;
        loop {
            match text.get(at) {
                Some(b'u') => affected |= SUID | USER,
                Some(b'g') => affected |= SGID | GROUP,
                Some(b'o') => affected |= STICKY | OTHER,
                Some(b'a') => affected |= ALL,
                Some(b'=' | b'+' | b'-') => break,
                _ => return None,
            }
            at += 1;
        }
        while let Some(&op) = text.get(at).filter(|c| b"=+-".contains(c)) {
            at += 1;
            let change = parse_action(text, &mut at, op as char, affected)?;
            changes.push(change);
        }
        match text.get(at) {
            None => return Some(ModeChange { changes }),
            Some(b',') => at += 1,
            Some(_) => return None,
        }
    }
}

/// What follows one operator: permission letters, a class to copy, or octal.
fn parse_action(text: &[u8], at: &mut usize, op: char, affected: u32) -> Option<Change> {
    let mut flag = Flag::CopyExisting;
    let mut mentioned = 0;
    let mut affected = affected;
    let value = match text.get(*at) {
        Some(b'0'..=b'7') => {
            let mut octal: u32 = 0;
            while let Some(&digit @ b'0'..=b'7') = text.get(*at) {
                octal = octal * 8 + u32::from(digit - b'0');
                if octal > ALL {
                    return None;
                }
                *at += 1;
            }
            if affected != 0 || text.get(*at).is_some_and(|&c| c != b',') {
                return None;
            }
            affected = ALL;
            mentioned = ALL;
            flag = Flag::Ordinary;
            octal
        }
        Some(b'u') => {
            *at += 1;
            USER
        }
        Some(b'g') => {
            *at += 1;
            GROUP
        }
        Some(b'o') => {
            *at += 1;
            OTHER
        }
        _ => {
            flag = Flag::Ordinary;
            let mut value = 0;
            loop {
                match text.get(*at) {
                    Some(b'r') => value |= READ,
                    Some(b'w') => value |= WRITE,
                    Some(b'x') => value |= EXEC,
                    Some(b'X') => flag = Flag::ExecIfAnyExec,
                    Some(b's') => value |= SUID | SGID,
                    Some(b't') => value |= STICKY,
                    _ => break,
                }
                *at += 1;
            }
            value
        }
    };
    let mentioned = if mentioned != 0 {
        mentioned
    } else if affected != 0 {
        affected & value
    } else {
        value
    };
    Some(Change {
        op,
        flag,
        affected,
        value,
        mentioned,
    })
}

/// The mode `mkdir -m TEXT` gives a new directory: the change applied to `0777`,
/// made the way coreutils makes it (the kernel ignores set-id bits in `mkdir`, a
/// directory with special bits starts without group and other write, and only a
/// mentioned bit that came out wrong makes it `chmod` to the exact mode).
pub(crate) fn mkdir_mode(change: &ModeChange) -> u32 {
    let (mode, mode_bits) = change.apply_with_bits(0o777, true, UMASK);
    let keeps_special = (mode_bits & (SUID | SGID)) | (mode & STICKY) == 0;
    let mut created = mode & (STICKY | 0o777);
    if !keeps_special {
        created &= !0o022;
    }
    if (created ^ mode) & mode_bits != 0 {
        mode
    } else {
        created
    }
}

/// `rwxr-xr-x` for the permission bits of `mode` (as `ls -l` shows them).
pub(crate) fn permission_string(mode: u32) -> String {
    let triplet = |shift: u32, special: u32, set: char, unset: char| {
        let bits = (mode >> shift) & 7;
        let exec = bits & 1 != 0;
        let special = mode & special != 0;
        [
            if bits & 4 != 0 { 'r' } else { '-' },
            if bits & 2 != 0 { 'w' } else { '-' },
            match (exec, special) {
                (true, true) => set,
                (false, true) => unset,
                (true, false) => 'x',
                (false, false) => '-',
            },
        ]
    };
    triplet(6, SUID, 's', 'S')
        .into_iter()
        .chain(triplet(3, SGID, 's', 'S'))
        .chain(triplet(0, STICKY, 't', 'T'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chmod(mode: &str, old: u32, dir: bool) -> u32 {
        ModeChange::parse(mode)
            .unwrap_or_else(|| panic!("{mode} should parse"))
            .apply(old, dir, UMASK)
    }

    #[test]
    fn octal_modes() {
        assert_eq!(chmod("600", 0o644, false), 0o600);
        assert_eq!(chmod("7777", 0o644, false), 0o7777);
        assert_eq!(chmod("755", 0o2755, true), 0o2755);
        assert_eq!(chmod("00755", 0o2755, true), 0o755);
        assert!(ModeChange::parse("888").is_none());
        assert!(ModeChange::parse("17777").is_none());
    }

    #[test]
    fn symbolic_modes() {
        assert_eq!(chmod("u+x", 0o644, false), 0o744);
        assert_eq!(chmod("+x", 0o644, false), 0o755);
        assert_eq!(chmod("go-r", 0o755, false), 0o711);
        assert_eq!(chmod("-w", 0o666, false), 0o466);
        assert_eq!(chmod("g=u", 0o644, false), 0o664);
        assert_eq!(chmod("a=r,u+w", 0o777, false), 0o644);
        assert_eq!(chmod("o+X", 0o644, false), 0o644);
        assert_eq!(chmod("+X", 0o644, true), 0o755);
        assert_eq!(chmod("u+s,g+s,+t", 0o644, false), 0o7644);
        assert_eq!(chmod("=r", 0o777, false), 0o444);
        assert_eq!(chmod("=", 0o777, false), 0);
        assert_eq!(chmod("u=rwx,g=rx,o=", 0o644, false), 0o750);
        assert_eq!(chmod("-x,+r", 0o311, false), 0o644);
        assert_eq!(chmod("=755", 0o644, false), 0o755);
        for bad in ["abc", "u+q", "u", "", "u+x,", "ug=7", "+7x"] {
            assert!(ModeChange::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn mkdir_modes_as_coreutils_makes_them() {
        let cases = [
            ("u-w", 0o577),
            ("+t", 0o1755),
            ("o=t", 0o1750),
            ("u+s", 0o4777),
            ("+s", 0o6777),
            ("a=rwx,+t", 0o1777),
            ("o+w,+t", 0o1777),
            ("=t", 0o1000),
            ("=rwx", 0o755),
            ("go-x", 0o766),
            ("1777", 0o1777),
            ("2777", 0o2777),
            ("700", 0o700),
        ];
        for (text, want) in cases {
            let change = ModeChange::parse(text).unwrap();
            assert_eq!(mkdir_mode(&change), want, "{text}");
        }
    }

    #[test]
    fn permission_strings() {
        assert_eq!(permission_string(0o644), "rw-r--r--");
        assert_eq!(permission_string(0o7777), "rwsrwsrwt");
        assert_eq!(permission_string(0o7000), "--S--S--T");
    }
}
