//! Tar archives as GNU tar writes them (GNU headers, `././@LongLink` entries for long
//! names, 10240-byte records) and as it reads them (ustar, GNU and pax headers; a
//! damaged header skipped to the next good one; a truncated archive noticed). The
//! `tar` crate encodes and decodes the header fields. The one tar of sandtab: the
//! shell's `tar` and a sandbox's `export_tar`/`import_tar` both read and write here.

use std::collections::HashMap;
use tar::{EntryType, Header};

const BLOCK: usize = 512;
/// GNU tar's default record: 20 blocks.
const RECORD: usize = 20 * BLOCK;
/// The name GNU tar gives the entries that carry long names.
const LONG_LINK: &[u8] = b"././@LongLink";

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Directory,
    Symlink,
    HardLink,
    /// Devices, FIFOs and other entries the sandbox cannot make.
    Other(u8),
}

impl Kind {
    /// The type letter of `ls -l` and `tar -tv`.
    pub fn letter(self) -> char {
        match self {
            Self::File => '-',
            Self::Directory => 'd',
            Self::Symlink => 'l',
            Self::HardLink => 'h',
            Self::Other(b'3') => 'c',
            Self::Other(b'4') => 'b',
            Self::Other(b'6') => 'p',
            Self::Other(_) => '?',
        }
    }
}

/// One member of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
    /// The target of a symlink or hard link.
    pub link: String,
    pub mode: u32,
    pub mtime: i64,
    pub uid: u64,
    pub gid: u64,
    pub user: String,
    pub group: String,
    pub size: u64,
}

/// What reading an archive found: its entries with their contents, and the
/// problems GNU tar would report along the way.
#[derive(Debug, Default)]
pub struct Contents {
    pub entries: Vec<(Entry, Vec<u8>)>,
    /// The first block was no header ("This does not look like a tar archive").
    pub not_an_archive: bool,
    /// How many times a damaged header was skipped over.
    pub skipped: usize,
    /// The archive ended inside an entry's data.
    pub truncated: bool,
    /// Bytes up to the end-of-archive blocks (where `tar -r` appends).
    pub end: usize,
}

fn is_valid_header(block: &[u8]) -> bool {
    let header = Header::from_byte_slice(block);
    let Ok(stored) = header.cksum() else {
        return false;
    };
    let mut unsigned: u32 = 0;
    let mut signed: i64 = 0;
    for (at, &byte) in block.iter().enumerate() {
        let byte = if (148..156).contains(&at) { b' ' } else { byte };
        unsigned += u32::from(byte);
        signed += i64::from(byte as i8);
    }
    stored == unsigned || i64::from(stored) == signed
}

/// Bytes up to the first NUL.
fn until_nul(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// `len key=value\n` records of a pax extended header.
fn parse_pax(data: &[u8]) -> HashMap<String, String> {
    let mut records = HashMap::new();
    let mut rest = data;
    while let Some(space) = rest.iter().position(|&b| b == b' ') {
        let Some(len) = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
        else {
            break;
        };
        if len <= space || len > rest.len() {
            break;
        }
        let record = &rest[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = record.iter().position(|&b| b == b'=') {
            let key = String::from_utf8_lossy(&record[..eq]).into_owned();
            let value = String::from_utf8_lossy(&record[eq + 1..]).into_owned();
            records.insert(key, value);
        }
        rest = &rest[len..];
    }
    records
}

/// Reads every entry of an uncompressed archive.
pub fn read(data: &[u8]) -> Contents {
    let mut contents = Contents::default();
    let mut at = 0;
    let mut long_name: Option<String> = None;
    let mut long_link: Option<String> = None;
    let mut pax: HashMap<String, String> = HashMap::new();
    let mut seen_header = false;
    while at + BLOCK <= data.len() {
        let block = &data[at..at + BLOCK];
        if block.iter().all(|&b| b == 0) {
            contents.end = at;
            return contents;
        }
        if !is_valid_header(block) {
            if !seen_header {
                contents.not_an_archive = true;
            }
            seen_header = true;
            contents.skipped += 1;
            at = skip_to_header(data, at + BLOCK);
            continue;
        }
        seen_header = true;
        let header = Header::from_byte_slice(block);
        let mut size = header.entry_size().unwrap_or(0);
        if let Some(pax_size) = pax.get("size").and_then(|s| s.parse().ok()) {
            size = pax_size;
        }
        let start = at + BLOCK;
        let len = usize::try_from(size).unwrap_or(usize::MAX);
        let end = start.saturating_add(len);
        let body = &data[start.min(data.len())..end.min(data.len())];
        let truncated = end > data.len();
        at = start.saturating_add(len.div_ceil(BLOCK).saturating_mul(BLOCK));
        match header.entry_type() {
            EntryType::GNULongName => long_name = Some(until_nul(body)),
            EntryType::GNULongLink => long_link = Some(until_nul(body)),
            EntryType::XHeader => pax = parse_pax(body),
            EntryType::XGlobalHeader => {}
            kind => {
                let mut entry = entry_from(header, kind, size);
                if let Some(name) = long_name.take().or_else(|| pax.remove("path")) {
                    entry.name = name;
                }
                if let Some(link) = long_link.take().or_else(|| pax.remove("linkpath")) {
                    entry.link = link;
                }
                apply_pax(&mut entry, &pax);
                pax.clear();
                contents.entries.push((entry, body.to_vec()));
            }
        }
        if truncated {
            contents.truncated = true;
            break;
        }
    }
    if !seen_header {
        // Nothing but a short or empty file.
        contents.not_an_archive = true;
    } else if at < data.len() {
        // Part of a block after the last whole one: the archive was cut there.
        contents.truncated = true;
    }
    contents.end = at.min(data.len());
    contents
}

/// The offset of the next block that is a valid header (or the end).
fn skip_to_header(data: &[u8], mut at: usize) -> usize {
    while at + BLOCK <= data.len() {
        let block = &data[at..at + BLOCK];
        if block.iter().all(|&b| b == 0) || is_valid_header(block) {
            return at;
        }
        at += BLOCK;
    }
    data.len()
}

fn entry_from(header: &Header, kind: EntryType, size: u64) -> Entry {
    let kind = match kind {
        EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => Kind::File,
        EntryType::Directory => Kind::Directory,
        EntryType::Symlink => Kind::Symlink,
        EntryType::Link => Kind::HardLink,
        other => Kind::Other(other.as_byte()),
    };
    let text = |bytes: Option<&[u8]>| bytes.map(until_nul).unwrap_or_default();
    let mut name = String::from_utf8_lossy(&header.path_bytes()).into_owned();
    // Old archives mark directories only by the trailing slash.
    let kind = if kind == Kind::File && name.ends_with('/') {
        Kind::Directory
    } else {
        kind
    };
    if kind == Kind::Directory && !name.ends_with('/') {
        name.push('/');
    }
    Entry {
        name,
        kind,
        link: header
            .link_name_bytes()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default(),
        mode: header.mode().unwrap_or(0o644) & 0o7777,
        mtime: header.mtime().map_or(0, |t| i64::try_from(t).unwrap_or(0)),
        uid: header.uid().unwrap_or(0),
        gid: header.gid().unwrap_or(0),
        user: text(header.username_bytes()),
        group: text(header.groupname_bytes()),
        size: if matches!(kind, Kind::File) { size } else { 0 },
    }
}

fn apply_pax(entry: &mut Entry, pax: &HashMap<String, String>) {
    if let Some(mtime) = pax
        .get("mtime")
        .and_then(|t| t.split('.').next())
        .and_then(|t| t.parse().ok())
    {
        entry.mtime = mtime;
    }
    if let Some(user) = pax.get("uname") {
        entry.user.clone_from(user);
    }
    if let Some(group) = pax.get("gname") {
        entry.group.clone_from(group);
    }
}

/// Builds an archive in memory.
#[derive(Debug)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    /// A new archive, or one that continues `existing` (up to its end blocks).
    pub fn new(existing: Vec<u8>) -> Self {
        Self { out: existing }
    }

    pub fn append(&mut self, entry: &Entry, data: &[u8]) {
        let name = entry.name.as_bytes();
        if name.len() > 100 {
            self.long_entry(EntryType::GNULongName, name);
        }
        let link = entry.link.as_bytes();
        if link.len() > 100 {
            self.long_entry(EntryType::GNULongLink, link);
        }
        let mut header = Header::new_gnu();
        copy_truncated(&mut header.as_old_mut().name, name);
        copy_truncated(&mut header.as_old_mut().linkname, link);
        header.set_mode(entry.mode & 0o7777);
        header.set_uid(entry.uid);
        header.set_gid(entry.gid);
        header.set_size(if entry.kind == Kind::File {
            data.len() as u64
        } else {
            0
        });
        header.set_mtime(u64::try_from(entry.mtime).unwrap_or(0));
        header.set_entry_type(match entry.kind {
            Kind::File => EntryType::Regular,
            Kind::Directory => EntryType::Directory,
            Kind::Symlink => EntryType::Symlink,
            Kind::HardLink => EntryType::Link,
            Kind::Other(byte) => EntryType::new(byte),
        });
        // Names longer than the fields are cut, as GNU tar cuts them.
        let _ = header.set_username(truncate(&entry.user, 31));
        let _ = header.set_groupname(truncate(&entry.group, 31));
        set_checksum(&mut header);
        self.out.extend_from_slice(header.as_bytes());
        if entry.kind == Kind::File {
            self.push_data(data);
        }
    }

    /// The `././@LongLink` entry that carries a name too long for its field.
    fn long_entry(&mut self, kind: EntryType, name: &[u8]) {
        let mut header = Header::new_gnu();
        copy_truncated(&mut header.as_old_mut().name, LONG_LINK);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_size(name.len() as u64 + 1);
        header.set_entry_type(kind);
        let _ = header.set_username("root");
        let _ = header.set_groupname("root");
        set_checksum(&mut header);
        self.out.extend_from_slice(header.as_bytes());
        let mut data = name.to_vec();
        data.push(0);
        self.push_data(&data);
    }

    fn push_data(&mut self, data: &[u8]) {
        self.out.extend_from_slice(data);
        let padding = (BLOCK - data.len() % BLOCK) % BLOCK;
        self.out.resize(self.out.len() + padding, 0);
    }

    /// The archive: the entries, two zero blocks, padded to a whole record.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.resize(self.out.len() + 2 * BLOCK, 0);
        let padding = (RECORD - self.out.len() % RECORD) % RECORD;
        self.out.resize(self.out.len() + padding, 0);
        self.out
    }
}

/// The header checksum as GNU tar writes it: six octal digits, NUL, space.
fn set_checksum(header: &mut Header) {
    let bytes = header.as_mut_bytes();
    bytes[148..156].fill(b' ');
    let sum: u32 = bytes.iter().map(|&b| u32::from(b)).sum();
    let field = format!("{:06o}\0 ", sum % 0o1_000_000);
    bytes[148..156].copy_from_slice(field.as_bytes());
}

fn copy_truncated(field: &mut [u8], bytes: &[u8]) {
    let len = bytes.len().min(field.len());
    field[..len].copy_from_slice(&bytes[..len]);
}

fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, kind: Kind) -> Entry {
        Entry {
            name: name.to_owned(),
            kind,
            link: String::new(),
            mode: 0o644,
            mtime: 1_600_000_000,
            uid: 1000,
            gid: 1000,
            user: "agent".to_owned(),
            group: "agent".to_owned(),
            size: 0,
        }
    }

    #[test]
    fn round_trip_with_long_names() {
        let long = format!("d/{}", "n".repeat(150));
        let mut writer = Writer::new(Vec::new());
        writer.append(&entry("./", Kind::Directory), &[]);
        writer.append(&entry("./a", Kind::File), b"hello\n");
        writer.append(&entry(&long, Kind::File), b"x");
        let mut link = entry("l", Kind::Symlink);
        link.link = "t".repeat(120);
        writer.append(&link, &[]);
        let archive = writer.finish();
        assert_eq!(archive.len() % RECORD, 0);
        let contents = read(&archive);
        assert!(!contents.not_an_archive && !contents.truncated);
        let names: Vec<&str> = contents
            .entries
            .iter()
            .map(|(e, _)| e.name.as_str())
            .collect();
        assert_eq!(names, vec!["./", "./a", long.as_str(), "l"]);
        assert_eq!(contents.entries[1].1, b"hello\n");
        assert_eq!(contents.entries[1].0.mtime, 1_600_000_000);
        assert_eq!(contents.entries[3].0.link.len(), 120);
        assert_eq!(contents.entries[1].0.user, "agent");
    }

    #[test]
    fn damaged_archives() {
        assert!(read(b"junk\n").not_an_archive);
        assert!(read(b"").not_an_archive);
        assert!(!read(&[0; 1024]).not_an_archive);
        let mut writer = Writer::new(Vec::new());
        writer.append(&entry("a", Kind::File), &[b'x'; 600]);
        let archive = writer.finish();
        assert!(read(&archive[..900]).truncated);
        // Cut inside the second block's header: a partial block is no end of archive.
        writer = Writer::new(Vec::new());
        writer.append(&entry("d/", Kind::Directory), &[]);
        writer.append(&entry("d/a", Kind::File), b"x");
        assert!(read(&writer.finish()[..1000]).truncated);
        let mut damaged = archive.clone();
        damaged[0] ^= 0xff;
        let contents = read(&damaged);
        assert!(contents.not_an_archive);
        assert_eq!(contents.skipped, 1);
    }
}
