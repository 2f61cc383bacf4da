//! `openssl rand [-hex | -base64] [-out FILE] NUM`: random bytes from the sandbox's
//! source (so a replay draws the same). The only `openssl` command a sandbox has.

use crate::entropy::Entropy;
use crate::util::{Files, Output, strerror};
use crate::{Context, Registry, Status};
use base64::Engine;
use sandtab_vfs::SandboxFs;
use std::sync::Arc;

pub(crate) fn register(builder: Registry, fs: &Arc<SandboxFs>, entropy: &Arc<Entropy>) -> Registry {
    builder.command(
        "openssl",
        Openssl {
            fs: fs.clone(),
            entropy: entropy.clone(),
        },
    )
}

struct Openssl {
    fs: Arc<SandboxFs>,
    entropy: Arc<Entropy>,
}

/// The most bytes one `rand` gives.
const MAX_BYTES: usize = 1 << 20;

const RAND_USAGE: &str = "Usage: rand [options] num\n -out outfile  Output file\n -base64       Base64 encode output\n -hex          Hex encode output\n";

#[async_trait::async_trait]
impl crate::Command for Openssl {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut out = Output::new(&ctx);
        let Some((command, rest)) = ctx.args.split_first() else {
            out.err("openssl: interactive mode is not supported in the sandbox\n")
                .await?;
            return out.finish(1).await;
        };
        if command != "rand" {
            out.err(format!(
                "Invalid command '{command}'; the sandbox's openssl has only \"rand\".\n"
            ))
            .await?;
            return out.finish(1).await;
        }
        let (mut hex, mut b64, mut file, mut num) = (false, false, None, None);
        let mut args = rest.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-hex" => hex = true,
                "-base64" => b64 = true,
                "-help" => {
                    out.out(RAND_USAGE).await?;
                    return out.finish(0).await;
                }
                "-out" => match args.next() {
                    Some(name) => file = Some(name.clone()),
                    None => {
                        out.err(RAND_USAGE).await?;
                        return out.finish(1).await;
                    }
                },
                word if num.is_none() && !word.starts_with('-') => num = Some(word.to_owned()),
                word => {
                    out.err(format!(
                        "rand: Unknown option or number: {word}\n{RAND_USAGE}"
                    ))
                    .await?;
                    return out.finish(1).await;
                }
            }
        }
        let Some(num) = num else {
            out.err(RAND_USAGE).await?;
            return out.finish(1).await;
        };
        let Ok(n) = num.parse::<usize>() else {
            out.err(format!(
                "rand: Can't parse \"{num}\" as a number\n{RAND_USAGE}"
            ))
            .await?;
            return out.finish(1).await;
        };
        if n > MAX_BYTES {
            out.err(format!(
                "rand: {n} bytes exceeds the {MAX_BYTES} byte limit\n"
            ))
            .await?;
            return out.finish(1).await;
        }
        let mut bytes = vec![0u8; n];
        if let Err(why) = self.entropy.fill(&mut bytes) {
            out.err(format!("rand: {why}\n")).await?;
            return out.finish(1).await;
        }
        let data = if n == 0 {
            Vec::new()
        } else if hex {
            let mut text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            text.push('\n');
            text.into_bytes()
        } else if b64 {
            // openssl wraps base64 at 64 columns.
            let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
            let mut text = String::new();
            for line in encoded.as_bytes().chunks(64) {
                text.push_str(&String::from_utf8_lossy(line));
                text.push('\n');
            }
            text.into_bytes()
        } else {
            bytes
        };
        match file {
            Some(name) => {
                let files = Files::new(&self.fs, &ctx);
                if let Err(err) = files.write(&name, &data).await {
                    out.err(format!("rand: {name}: {}\n", strerror(&err)))
                        .await?;
                    return out.finish(1).await;
                }
            }
            None => out.out(data).await?,
        }
        out.finish(0).await
    }
}
