//! The gzip file format (RFC 1952) through flate2, as GNU gzip uses it: the original
//! name and mtime in the header, several members one after another, trailing zeros or
//! garbage noticed, and each problem named in gzip's words.

use flate2::bufread::GzDecoder;
use flate2::{Compression, GzBuilder};
use std::io::{self, Read, Write};

const MAGIC: [u8; 2] = [0x1f, 0x8b];
const DEFLATE: u8 = 8;
/// The operating system byte GNU gzip writes on Unix.
const OS_UNIX: u8 = 3;

/// What one member's header says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub name: Option<String>,
    pub mtime: u32,
    /// Bytes the header takes.
    pub len: usize,
}

/// Why data could not be decompressed, in gzip's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Problem {
    NotGzip,
    UnexpectedEnd,
    /// The trailer's CRC-32 or length does not match (flate2 checks both at once).
    Crc,
    Format,
    /// The output would exceed the largest file the sandbox holds.
    TooLarge,
}

impl Problem {
    /// GNU gzip's message after `gzip: NAME: `.
    pub fn message(self) -> &'static str {
        match self {
            Self::NotGzip => "not in gzip format",
            Self::UnexpectedEnd => "unexpected end of file",
            Self::Crc => "invalid compressed data--crc error",
            Self::Format => "invalid compressed data--format violated",
            Self::TooLarge => "File too large",
        }
    }

    /// The problem flate2's error means.
    fn of(err: &io::Error) -> Self {
        if err.kind() == io::ErrorKind::UnexpectedEof {
            Self::UnexpectedEnd
        } else if err.to_string().contains("checksum") {
            // flate2 reports a bad trailer and bad deflate data with the same kind; only
            // its message tells them apart (the `problems` test pins it).
            Self::Crc
        } else {
            Self::Format
        }
    }
}

/// What follows the last member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trailing {
    Nothing,
    Zeros,
    Garbage,
}

/// Decompressed data, or what went wrong and what came out before it did.
#[derive(Debug)]
pub(crate) struct Decoded {
    pub data: Vec<u8>,
    /// The first member's header.
    pub header: Header,
    pub trailing: Trailing,
    pub problem: Option<Problem>,
}

/// Compresses `data` into one gzip member at `level` (1 to 9), storing `name` and
/// `mtime` in the header as GNU gzip does.
pub(crate) fn compress(data: &[u8], level: u32, name: Option<&str>, mtime: u32) -> Vec<u8> {
    let mut builder = GzBuilder::new().mtime(mtime).operating_system(OS_UNIX);
    if let Some(name) = name {
        builder = builder.filename(name.bytes().filter(|&b| b != 0).collect::<Vec<u8>>());
    }
    let out = Vec::with_capacity(data.len() / 2 + 64);
    let mut encoder = builder.write(out, Compression::new(level.clamp(1, 9)));
    // Writing into a Vec does not fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// Parses a member header at the start of `data`.
pub(crate) fn parse_header(data: &[u8]) -> Result<Header, Problem> {
    // What GNU calls "not in gzip format" before flate2 sees it: another magic or method.
    if data.len() < 2 || data[..2] != MAGIC || data.get(2).is_some_and(|&m| m != DEFLATE) {
        return Err(Problem::NotGzip);
    }
    let mut decoder = GzDecoder::new(data);
    let Some(header) = decoder.header() else {
        // The header's error comes with the first read.
        let err = decoder
            .read(&mut [0])
            .err()
            .unwrap_or_else(|| io::ErrorKind::UnexpectedEof.into());
        return Err(Problem::of(&err));
    };
    Ok(Header {
        name: header
            .filename()
            .map(|name| String::from_utf8_lossy(name).into_owned()),
        mtime: header.mtime(),
        // The decoder has read exactly the header from the slice.
        len: data.len() - decoder.get_ref().len(),
    })
}

/// Decompresses every member of `data`; stops at the first problem (keeping what
/// came out until then), and notes what follows the last member.
pub(crate) fn decompress(data: &[u8]) -> Decoded {
    let mut decoded = Decoded {
        data: Vec::new(),
        header: Header::default(),
        trailing: Trailing::Nothing,
        problem: None,
    };
    let mut at = 0;
    let mut first = true;
    while at < data.len() {
        let rest = &data[at..];
        if !first && !rest.starts_with(&MAGIC) {
            decoded.trailing = if rest.iter().all(|&b| b == 0) {
                Trailing::Zeros
            } else {
                Trailing::Garbage
            };
            break;
        }
        match decode_member(rest, &mut decoded.data) {
            Ok((header, used)) => {
                if first {
                    decoded.header = header;
                }
                at += used;
            }
            Err(problem) => {
                decoded.problem = Some(problem);
                break;
            }
        }
        first = false;
    }
    if data.is_empty() {
        decoded.problem = Some(Problem::UnexpectedEnd);
    }
    decoded
}

/// Decodes the member at the start of `data` onto `out`: its header and its length
/// (the trailer included).
fn decode_member(data: &[u8], out: &mut Vec<u8>) -> Result<(Header, usize), Problem> {
    let header = parse_header(data)?;
    let limit = usize::try_from(sandtab_vfs::MAX_FILE_SIZE).unwrap_or(usize::MAX);
    let room = limit.saturating_sub(out.len());
    let start = out.len();
    let mut decoder = GzDecoder::new(data);
    // One byte past the room tells a member that is too large from one that just fits.
    let read = (&mut decoder)
        .take(u64::try_from(room).unwrap_or(u64::MAX).saturating_add(1))
        .read_to_end(out);
    if out.len() - start > room {
        return Err(Problem::TooLarge);
    }
    read.map_err(|err| Problem::of(&err))?;
    Ok((header, data.len() - decoder.get_ref().len()))
}

/// What `gzip -l` reports of a compressed file: from its first header and its last
/// eight bytes (so, as GNU's, only the last member's size and CRC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    pub header: Header,
    pub crc: u32,
    pub uncompressed: u64,
}

pub(crate) fn list(data: &[u8]) -> Result<Listing, Problem> {
    let header = parse_header(data)?;
    if data.len() < header.len + 8 {
        return Err(Problem::UnexpectedEnd);
    }
    let tail = &data[data.len() - 8..];
    Ok(Listing {
        header,
        crc: u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]),
        uncompressed: u64::from(u32::from_le_bytes([tail[4], tail[5], tail[6], tail[7]])),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_as_gnu_writes_it() {
        let gz = compress(b"x", 6, Some("f"), 1_600_000_000);
        assert_eq!(
            &gz[..12],
            &[0x1f, 0x8b, 8, 8, 0x00, 0x10, 0x5e, 0x5f, 0, 3, b'f', 0]
        );
        let stdin = compress(b"x", 9, None, 0);
        assert_eq!(&stdin[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 3]);
    }

    #[test]
    fn round_trip_and_members() {
        let mut both = compress(b"0123456789\n", 6, Some("f"), 5);
        both.extend(compress(b"hello\n", 1, None, 0));
        let decoded = decompress(&both);
        assert_eq!(decoded.data, b"0123456789\nhello\n");
        assert_eq!(decoded.header.name.as_deref(), Some("f"));
        assert_eq!(decoded.header.mtime, 5);
        assert_eq!(decoded.trailing, Trailing::Nothing);
        assert_eq!(decoded.problem, None);
    }

    #[test]
    fn trailing_data() {
        let mut gz = compress(b"a", 6, None, 0);
        gz.extend([0, 0, 0, 0]);
        assert_eq!(decompress(&gz).trailing, Trailing::Zeros);
        gz.extend(b"junk\n");
        assert_eq!(decompress(&gz).trailing, Trailing::Garbage);
    }

    #[test]
    fn problems() {
        assert_eq!(decompress(b"hi\n").problem, Some(Problem::NotGzip));
        assert_eq!(decompress(b"").problem, Some(Problem::UnexpectedEnd));
        assert_eq!(
            decompress(&[0x1f, 0x8b, 8, 0]).problem,
            Some(Problem::UnexpectedEnd)
        );
        let gz = compress(&[b'a'; 5000], 6, None, 0);
        let cut = decompress(&gz[..gz.len() - 3]);
        assert_eq!(cut.problem, Some(Problem::UnexpectedEnd));
        let mut bad_crc = gz.clone();
        let at = bad_crc.len() - 8;
        bad_crc[at] ^= 1;
        assert_eq!(decompress(&bad_crc).problem, Some(Problem::Crc));
        let mut bad_data = compress(b"0123456789\n", 6, None, 0);
        bad_data[10] = 0xff;
        assert_eq!(decompress(&bad_data).problem, Some(Problem::Format));
        // A length that does not match is reported with the CRC.
        let mut bad_len = compress(b"0123456789\n", 6, None, 0);
        let at = bad_len.len() - 4;
        bad_len[at] ^= 1;
        assert_eq!(decompress(&bad_len).problem, Some(Problem::Crc));
        // Reserved flag bits.
        let mut reserved = compress(b"x", 6, None, 0);
        reserved[3] = 0xe0;
        assert_eq!(decompress(&reserved).problem, Some(Problem::Format));
        // A header cut in its name.
        let named = compress(b"x", 6, Some("name"), 0);
        assert_eq!(
            decompress(&named[..12]).problem,
            Some(Problem::UnexpectedEnd)
        );
    }

    #[test]
    fn listing() {
        let gz = compress(b"0123456789\n", 6, Some("f"), 0);
        let listing = list(&gz).unwrap();
        assert_eq!(listing.uncompressed, 11);
        assert_eq!(listing.header.len, 12);
        assert_eq!(listing.crc, 0x4076_e5d1);
    }
}
