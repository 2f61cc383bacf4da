//! The gzip file format (RFC 1952) as GNU gzip writes and reads it: a header with
//! the original name and mtime, raw deflate data, CRC-32 and size; several members
//! one after another; trailing zeros or garbage noticed.

use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};

const MAGIC: [u8; 2] = [0x1f, 0x8b];
const DEFLATE: u8 = 8;
const FLAG_HEADER_CRC: u8 = 0x02;
const FLAG_EXTRA: u8 = 0x04;
const FLAG_NAME: u8 = 0x08;
const FLAG_COMMENT: u8 = 0x10;
const FLAG_RESERVED: u8 = 0xe0;
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
    Crc,
    Length,
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
            Self::Length => "invalid compressed data--length error",
            Self::Format => "invalid compressed data--format violated",
            Self::TooLarge => "File too large",
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
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    out.extend_from_slice(&MAGIC);
    out.push(DEFLATE);
    out.push(if name.is_some() { FLAG_NAME } else { 0 });
    out.extend_from_slice(&mtime.to_le_bytes());
    out.push(match level {
        9 => 2,
        1 => 4,
        _ => 0,
    });
    out.push(OS_UNIX);
    if let Some(name) = name {
        out.extend(name.bytes().filter(|&b| b != 0));
        out.push(0);
    }
    deflate_into(data, level, &mut out);
    let mut crc = Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // ISIZE is the length modulo 2^32 by definition.
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn deflate_into(data: &[u8], level: u32, out: &mut Vec<u8>) {
    let mut deflater = Compress::new(Compression::new(level.clamp(1, 9)), false);
    let mut input = data;
    loop {
        out.reserve(input.len() / 2 + 1024);
        let before = deflater.total_in();
        let status = deflater.compress_vec(input, out, FlushCompress::Finish);
        let used = usize::try_from(deflater.total_in() - before).unwrap_or(input.len());
        input = &input[used.min(input.len())..];
        match status {
            Ok(Status::StreamEnd) | Err(_) => break,
            Ok(_) => {}
        }
    }
}

/// Parses a member header at the start of `data`.
pub(crate) fn parse_header(data: &[u8]) -> Result<Header, Problem> {
    if data.len() < 2 || data[..2] != MAGIC {
        return Err(Problem::NotGzip);
    }
    let byte = |at: usize| data.get(at).copied().ok_or(Problem::UnexpectedEnd);
    if byte(2)? != DEFLATE {
        return Err(Problem::NotGzip);
    }
    let flags = byte(3)?;
    if flags & FLAG_RESERVED != 0 {
        return Err(Problem::Format);
    }
    let mtime = u32::from_le_bytes([byte(4)?, byte(5)?, byte(6)?, byte(7)?]);
    byte(9)?;
    let mut at = 10;
    if flags & FLAG_EXTRA != 0 {
        let len = usize::from(u16::from_le_bytes([byte(at)?, byte(at + 1)?]));
        at += 2 + len;
        if at > data.len() {
            return Err(Problem::UnexpectedEnd);
        }
    }
    let take_string = |at: &mut usize| -> Result<String, Problem> {
        let rest = data.get(*at..).ok_or(Problem::UnexpectedEnd)?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(Problem::UnexpectedEnd)?;
        let text = String::from_utf8_lossy(&rest[..end]).into_owned();
        *at += end + 1;
        Ok(text)
    };
    let name = if flags & FLAG_NAME != 0 {
        Some(take_string(&mut at)?)
    } else {
        None
    };
    if flags & FLAG_COMMENT != 0 {
        take_string(&mut at)?;
    }
    if flags & FLAG_HEADER_CRC != 0 {
        at += 2;
    }
    if at > data.len() {
        return Err(Problem::UnexpectedEnd);
    }
    Ok(Header {
        name,
        mtime,
        len: at,
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
        if !first && rest.len() >= 2 && rest[..2] != MAGIC || !first && rest.len() < 2 {
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

/// Decodes the member at the start of `data` onto `out`: its header and its length.
fn decode_member(data: &[u8], out: &mut Vec<u8>) -> Result<(Header, usize), Problem> {
    let header = parse_header(data)?;
    let start = out.len();
    let used = inflate_into(&data[header.len..], out)?;
    let trailer_at = header.len + used;
    let trailer = data
        .get(trailer_at..trailer_at + 8)
        .ok_or(Problem::UnexpectedEnd)?;
    let mut crc = Crc::new();
    crc.update(&out[start..]);
    let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let stored_len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if crc.sum() != stored_crc {
        return Err(Problem::Crc);
    }
    if (out.len() - start) as u32 != stored_len {
        return Err(Problem::Length);
    }
    Ok((header, trailer_at + 8))
}

/// Inflates the raw deflate stream at the start of `data` onto `out`; how many
/// bytes of `data` it took.
fn inflate_into(data: &[u8], out: &mut Vec<u8>) -> Result<usize, Problem> {
    const CHUNK: usize = 256 * 1024;
    let limit = usize::try_from(sandtab_vfs::MAX_FILE_SIZE).unwrap_or(usize::MAX);
    let mut inflater = Decompress::new(false);
    loop {
        let taken = usize::try_from(inflater.total_in()).unwrap_or(usize::MAX);
        let input = data.get(taken..).unwrap_or_default();
        if out.len() >= limit {
            return Err(Problem::TooLarge);
        }
        if out.capacity() - out.len() < CHUNK {
            out.try_reserve(CHUNK).map_err(|_| Problem::TooLarge)?;
        }
        let before = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress_vec(input, out, FlushDecompress::None)
            .map_err(|_| Problem::Format)?;
        let taken = usize::try_from(inflater.total_in()).unwrap_or(usize::MAX);
        match status {
            Status::StreamEnd => return Ok(taken),
            _ if before == (inflater.total_in(), inflater.total_out()) => {
                // No progress: the input ran out before the stream's end.
                return Err(Problem::UnexpectedEnd);
            }
            _ => {}
        }
    }
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
