//! `uuidgen` (util-linux): random UUIDs (version 4, the default), time-based ones
//! (`-t`, version 1, from the sandbox's clock) and name-based ones (`-m`: version 3, MD5;
//! `-s`: version 5, SHA-1, of `-n NAMESPACE` and `-N NAME`), `-C COUNT` of them. The
//! random bytes come from the sandbox's source, so a replay makes the same UUIDs.

use crate::entropy::Entropy;
use crate::options::{Keyed, Long, Parser, Spec, Value};
use crate::util::{Output, print_info, usage_error};
use crate::{Context, Registry, Status};
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, entropy: &Arc<Entropy>) -> Registry {
    builder.command(
        "uuidgen",
        Uuidgen {
            fs: fs.clone(),
            entropy: entropy.clone(),
        },
    )
}

struct Uuidgen {
    fs: Arc<SandboxFs>,
    entropy: Arc<Entropy>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Random,
    Time,
    Md5,
    Sha1,
}

const SPEC: Spec<Long> = Spec {
    short: "rtmsxhVn:N:C:",
    long: &[
        ("random", Value::No, 'r'),
        ("time", Value::No, 't'),
        ("md5", Value::No, 'm'),
        ("sha1", Value::No, 's'),
        ("namespace", Value::Required, 'n'),
        ("name", Value::Required, 'N'),
        ("hex", Value::No, 'x'),
        ("count", Value::Required, 'C'),
        ("help", Value::No, 'h'),
        ("version", Value::No, 'V'),
    ],
    stop_at_operand: false,
    negative_numbers: false,
};

const USAGE: &str = "\
Usage:
 uuidgen [options]

Create a new UUID value.

Options:
 -r, --random          generate random-based uuid
 -t, --time            generate time-based uuid
 -n, --namespace ns    generate hash-based uuid in this namespace
                         available namespaces: @dns @url @oid @x500
 -N, --name name       generate hash-based uuid from this name
 -m, --md5             generate md5 hash
 -s, --sha1            generate sha1 hash
 -x, --hex             interpret name as a hex string
 -C, --count num       generate more uuids in loop
 -h, --help            display this help
 -V, --version         display version
";

struct Options {
    kind: Kind,
    namespace: Option<String>,
    name: Option<String>,
    hex: bool,
    count: u64,
}

enum Parsed {
    Run(Options),
    Help,
    Version,
}

fn parse_args(args: &[String]) -> Result<Parsed, String> {
    let mut options = Options {
        kind: Kind::Random,
        namespace: None,
        name: None,
        hex: false,
        count: 1,
    };
    let count = |text: &str| {
        text.parse::<u64>()
            .ok()
            .filter(|n| (1..=1_000_000).contains(n))
            .ok_or_else(|| format!("invalid count argument: '{text}'"))
    };
    let mut parser = Parser::new(&SPEC, args);
    while let Some(arg) = parser.next_keyed()? {
        let (key, value) = match arg {
            Keyed::Option(key, value) => (key, value.unwrap_or_default()),
            Keyed::Operand(word) => return Err(format!("unexpected argument '{word}'")),
        };
        match key {
            'r' => options.kind = Kind::Random,
            't' => options.kind = Kind::Time,
            'm' => options.kind = Kind::Md5,
            's' => options.kind = Kind::Sha1,
            'x' => options.hex = true,
            'n' => options.namespace = Some(value.to_owned()),
            'N' => options.name = Some(value.to_owned()),
            'C' => options.count = count(value)?,
            'h' => return Ok(Parsed::Help),
            _ => return Ok(Parsed::Version),
        }
    }
    let hashed = matches!(options.kind, Kind::Md5 | Kind::Sha1);
    if hashed && (options.namespace.is_none() || options.name.is_none()) {
        return Err("--namespace and --name options are required for hash-based UUIDs".into());
    }
    if !hashed && (options.namespace.is_some() || options.name.is_some()) {
        return Err("--namespace or --name requires --md5 or --sha1".into());
    }
    Ok(Parsed::Run(options))
}

/// A namespace: `@dns`, `@url`, `@oid`, `@x500`, or a UUID.
fn namespace(text: &str) -> Option<[u8; 16]> {
    let known = match text {
        "@dns" => "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "@url" => "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
        "@oid" => "6ba7b812-9dad-11d1-80b4-00c04fd430c8",
        "@x500" => "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
        other => other,
    };
    parse_hex(&known.replace('-', "")).and_then(|bytes| bytes.try_into().ok())
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn format_uuid(b: &[u8; 16]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn stamp(mut b: [u8; 16], version: u8) -> [u8; 16] {
    b[6] = (b[6] & 0x0f) | (version << 4);
    b[8] = (b[8] & 0x3f) | 0x80;
    b
}

impl Uuidgen {
    fn one(&self, options: &Options) -> Result<[u8; 16], String> {
        match options.kind {
            Kind::Random => {
                let mut b = [0u8; 16];
                self.entropy.fill(&mut b)?;
                Ok(stamp(b, 4))
            }
            Kind::Time => {
                // 100 ns intervals since 1582-10-15, a random clock sequence and node
                // (with the multicast bit set: not a real MAC address).
                let nanos = self.fs.mem().now().0;
                let ticks = nanos / 100 + 0x01b2_1dd2_1381_4000;
                let mut rest = [0u8; 8];
                self.entropy.fill(&mut rest)?;
                rest[2] |= 0x01;
                let mut b = [0u8; 16];
                b[0..4].copy_from_slice(&((ticks & 0xffff_ffff) as u32).to_be_bytes());
                b[4..6].copy_from_slice(&(((ticks >> 32) & 0xffff) as u16).to_be_bytes());
                b[6..8].copy_from_slice(&(((ticks >> 48) & 0x0fff) as u16).to_be_bytes());
                b[8..16].copy_from_slice(&rest);
                Ok(stamp(b, 1))
            }
            Kind::Md5 | Kind::Sha1 => {
                let given = options.namespace.as_deref().unwrap_or_default();
                let space = namespace(given)
                    .ok_or_else(|| format!("failed to parse namespace: '{given}'"))?;
                let text = options.name.as_deref().unwrap_or_default();
                let name = match options.hex {
                    true => {
                        parse_hex(text).ok_or_else(|| "failed to parse --name as hex".to_owned())?
                    }
                    false => text.as_bytes().to_vec(),
                };
                let mut digest = [0u8; 16];
                let version = if options.kind == Kind::Md5 {
                    use md5::{Digest, Md5};
                    let mut hasher = Md5::new();
                    hasher.update(space);
                    hasher.update(&name);
                    digest.copy_from_slice(&hasher.finalize()[..16]);
                    3
                } else {
                    use sha1::{Digest, Sha1};
                    let mut hasher = Sha1::new();
                    hasher.update(space);
                    hasher.update(&name);
                    digest.copy_from_slice(&hasher.finalize()[..16]);
                    5
                };
                Ok(stamp(digest, version))
            }
        }
    }
}

#[async_trait::async_trait]
impl crate::Command for Uuidgen {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let options = match parse_args(ctx.args) {
            Ok(Parsed::Run(options)) => options,
            Ok(Parsed::Help) => return print_info(&ctx, USAGE).await,
            Ok(Parsed::Version) => return print_info(&ctx, "uuidgen (sandtab) 1.0\n").await,
            Err(message) => return usage_error(&ctx, &message, 1).await,
        };
        let mut out = Output::new(&ctx);
        for _ in 0..options.count {
            match self.one(&options) {
                Ok(uuid) => out.out(format_uuid(&uuid) + "\n").await?,
                Err(message) => {
                    out.err(format!("uuidgen: {message}\n")).await?;
                    return out.finish(1).await;
                }
            }
        }
        out.finish(0).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_based_uuids_are_the_standard_ones() {
        let options = |kind, ns: &str, name: &str| Options {
            kind,
            namespace: Some(ns.into()),
            name: Some(name.into()),
            hex: false,
            count: 1,
        };
        let maker = Uuidgen {
            fs: crate::testing::sandbox(),
            entropy: crate::testing::counting_entropy(),
        };
        // RFC 4122 / util-linux: uuidgen --md5 -n @dns -N www.example.com
        let v3 = maker
            .one(&options(Kind::Md5, "@dns", "www.example.com"))
            .unwrap();
        assert_eq!(format_uuid(&v3), "5df41881-3aed-3515-88a7-2f4a814cf09e");
        let v5 = maker
            .one(&options(Kind::Sha1, "@dns", "www.example.com"))
            .unwrap();
        assert_eq!(format_uuid(&v5), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
        let v4 = format_uuid(
            &maker
                .one(&Options {
                    kind: Kind::Random,
                    namespace: None,
                    name: None,
                    hex: false,
                    count: 1,
                })
                .unwrap(),
        );
        assert_eq!(&v4[14..15], "4");
        assert!(matches!(&v4[19..20], "8" | "9" | "a" | "b"));
    }
}
