//! Wheels: what a file name says (name, version, tags), whether sandtab's CPython can
//! load it (pure Python only), the core metadata inside, and unpacking one into
//! site-packages.

use sandtab_vfs::{SandboxFs, VfsPath};
use std::io::Read;

/// The most a wheel may unpack to (a zip bomb stops here; the quota also applies).
const MAX_UNPACKED_BYTES: u64 = 512 * 1024 * 1024;

/// A wheel's file name, taken apart (`name-version[-build]-python-abi-platform.whl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WheelName {
    pub name: String,
    pub version: String,
    pub python: String,
    pub abi: String,
    pub platform: String,
}

impl WheelName {
    pub fn parse(filename: &str) -> Option<WheelName> {
        let stem = filename.strip_suffix(".whl")?;
        let parts: Vec<&str> = stem.split('-').collect();
        let (name, version, tags) = match parts.len() {
            5 => (parts[0], parts[1], &parts[2..]),
            6 => (parts[0], parts[1], &parts[3..]),
            _ => return None,
        };
        Some(WheelName {
            name: name.to_owned(),
            version: version.to_owned(),
            python: tags[0].to_owned(),
            abi: tags[1].to_owned(),
            platform: tags[2].to_owned(),
        })
    }

    /// Whether CPython 3.12 for WASI can use it: pure Python (`py3-none-any`,
    /// `py2.py3-none-any`, `py312-none-any`, ...), never a compiled one.
    pub fn is_pure(&self) -> bool {
        let python_ok = self.python.split('.').any(|tag| {
            tag == "py3"
                || tag
                    .strip_prefix("py3")
                    .or_else(|| tag.strip_prefix("cp3"))
                    .and_then(|minor| minor.parse::<u32>().ok())
                    .is_some_and(|minor| minor <= 12)
        });
        python_ok
            && self.abi.split('.').any(|abi| abi == "none")
            && self.platform.split('.').any(|platform| platform == "any")
    }

    /// The tags, as pip prints them (`py3-none-any`).
    pub fn tags(&self) -> String {
        format!("{}-{}-{}", self.python, self.abi, self.platform)
    }
}

/// The core metadata of a distribution (`METADATA`): the fields pip shows and the
/// requirements it follows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Metadata {
    pub name: String,
    pub version: String,
    pub summary: String,
    pub home_page: String,
    pub author: String,
    pub author_email: String,
    pub license: String,
    pub requires_dist: Vec<String>,
    pub requires_python: Option<String>,
}

impl Metadata {
    /// Parses the email-header format of `METADATA` (the body after the first empty
    /// line is the description, not needed here).
    pub fn parse(text: &str) -> Metadata {
        let mut fields: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if line.is_empty() {
                break;
            }
            if line.starts_with([' ', '\t']) {
                if let Some((_, value)) = fields.last_mut() {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                continue;
            }
            if let Some((key, value)) = line.split_once(':') {
                fields.push((key.trim().to_ascii_lowercase(), value.trim().to_owned()));
            }
        }
        let first = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        Metadata {
            name: first("name"),
            version: first("version"),
            summary: first("summary"),
            home_page: first("home-page"),
            author: first("author"),
            author_email: first("author-email"),
            license: first("license"),
            requires_dist: fields
                .iter()
                .filter(|(k, _)| k == "requires-dist")
                .map(|(_, v)| v.clone())
                .collect(),
            requires_python: fields
                .iter()
                .find(|(k, _)| k == "requires-python")
                .map(|(_, v)| v.clone()),
        }
    }
}

/// Why a wheel could not be read or unpacked.
#[derive(Debug)]
pub(crate) struct WheelError(pub String);

fn archive(bytes: &[u8]) -> Result<zip::ZipArchive<std::io::Cursor<&[u8]>>, WheelError> {
    zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|err| WheelError(format!("not a valid wheel (zip): {err}")))
}

/// The `.dist-info` directory of the wheel (`name-version.dist-info`).
fn dist_info_dir(zip: &zip::ZipArchive<std::io::Cursor<&[u8]>>) -> Result<String, WheelError> {
    zip.file_names()
        .find_map(|name| {
            let name = name.ok()?;
            let (dir, file) = name.split_once('/')?;
            (dir.ends_with(".dist-info") && file == "METADATA").then(|| dir.to_owned())
        })
        .ok_or_else(|| WheelError("the wheel has no .dist-info/METADATA".into()))
}

/// The wheel's core metadata.
pub(crate) fn read_metadata(bytes: &[u8]) -> Result<Metadata, WheelError> {
    let mut zip = archive(bytes)?;
    let dir = dist_info_dir(&zip)?;
    let mut file = zip
        .by_name(&format!("{dir}/METADATA"))
        .map_err(|err| WheelError(format!("reading METADATA: {err}")))?;
    let mut text = String::new();
    file.by_ref()
        .take(4 * 1024 * 1024)
        .read_to_string(&mut text)
        .map_err(|err| WheelError(format!("reading METADATA: {err}")))?;
    Ok(Metadata::parse(&text))
}

/// Unpacks the wheel into `site` (site-packages): its files, `.data/purelib` and
/// `platlib` at the top; `scripts`, `headers` and `data` are left out (there is no
/// `bin` to run them from). Writes `INSTALLER`. Returns how many files it wrote.
pub(crate) fn unpack(fs: &SandboxFs, site: &VfsPath, bytes: &[u8]) -> Result<usize, WheelError> {
    // Every entry is checked and read before the first is written: a wheel refused
    // half-way leaves nothing behind.
    let files = entries(site, bytes)?;
    let mem = fs.mem();
    for (path, data) in &files {
        if let Some(parent) = path.parent() {
            mem.create_dir_all(&parent)
                .map_err(|err| WheelError(format!("{parent}: {err}")))?;
        }
        mem.write(path, data)
            .map_err(|err| WheelError(format!("{path}: {err}")))?;
    }
    let dist_info = dist_info_dir(&archive(bytes)?)?;
    let installer = site
        .join(&format!("{dist_info}/INSTALLER"))
        .map_err(|err| WheelError(err.to_string()))?;
    mem.write(&installer, b"sandtab\n")
        .map_err(|err| WheelError(format!("{installer}: {err}")))?;
    Ok(files.len())
}

/// The files a wheel installs, each at its path under `site`, read whole.
fn entries(site: &VfsPath, bytes: &[u8]) -> Result<Vec<(VfsPath, Vec<u8>)>, WheelError> {
    let mut zip = archive(bytes)?;
    let dist_info = dist_info_dir(&zip)?;
    let data_dir = format!("{}.data/", dist_info.trim_end_matches(".dist-info"));
    let mut unpacked = 0u64;
    let mut files = Vec::new();
    for index in 0..zip.len() {
        let entry = zip
            .by_index(index)
            .map_err(|err| WheelError(format!("reading entry {index}: {err}")))?;
        if entry.is_dir() {
            continue;
        }
        // A name that climbs out (`../x`) or is absolute is refused, not followed
        // (`enclosed_name` would take `/x` as `x`; pip refuses it).
        let absolute = entry.name().is_ok_and(|name| name.starts_with(['/', '\\']));
        let Some(name) = entry.enclosed_name().filter(|_| !absolute) else {
            return Err(WheelError(format!(
                "an entry leaves the wheel: {:?}",
                entry.name().unwrap_or_default()
            )));
        };
        let name = name.to_string_lossy().replace('\\', "/");
        let relative = match name.strip_prefix(&data_dir) {
            Some(rest) => match rest.split_once('/') {
                Some(("purelib" | "platlib", inner)) => inner.to_owned(),
                _ => continue,
            },
            None => name,
        };
        // Counted as read, not as the archive claims: a lying size gains nothing.
        let room = MAX_UNPACKED_BYTES - unpacked;
        let mut data = Vec::with_capacity(entry.size().min(room).min(64 << 20) as usize);
        entry
            .take(room + 1)
            .read_to_end(&mut data)
            .map_err(|err| WheelError(format!("reading {relative}: {err}")))?;
        unpacked += data.len() as u64;
        if unpacked > MAX_UNPACKED_BYTES {
            return Err(WheelError(format!(
                "it unpacks to more than {} MiB",
                MAX_UNPACKED_BYTES >> 20
            )));
        }
        let path = site
            .join(&relative)
            .map_err(|err| WheelError(format!("{relative}: {err}")))?;
        if !path.starts_with(site) {
            return Err(WheelError(format!(
                "an entry leaves site-packages: {relative}"
            )));
        }
        files.push((path, data));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_names_are_taken_apart_and_only_pure_python_is_usable() {
        let pure = WheelName::parse("requests-2.32.3-py3-none-any.whl").unwrap();
        assert_eq!(
            (pure.name.as_str(), pure.version.as_str()),
            ("requests", "2.32.3")
        );
        assert!(pure.is_pure());
        assert!(
            WheelName::parse("six-1.16.0-py2.py3-none-any.whl")
                .unwrap()
                .is_pure()
        );
        assert!(
            WheelName::parse("x-1-1build-py312-none-any.whl")
                .unwrap()
                .is_pure()
        );
        for native in [
            "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl",
            "x-1.0-cp38-abi3-macosx_11_0_arm64.whl",
            "x-1.0-py2-none-any.whl",
            "x-1.0-py313-none-any.whl",
        ] {
            assert!(!WheelName::parse(native).unwrap().is_pure(), "{native}");
        }
        assert_eq!(WheelName::parse("x-1.0.tar.gz"), None);
        assert_eq!(WheelName::parse("x-1.0-any.whl"), None);
    }

    #[test]
    fn metadata_headers_are_read_up_to_the_description() {
        let meta = Metadata::parse(
            "Metadata-Version: 2.1\nName: requests\nVersion: 2.32.3\nSummary: Python HTTP\n\
             License: Apache-2.0\n  continued\nRequires-Dist: idna<4,>=2.5\n\
             Requires-Dist: PySocks!=1.5.7,>=1.5.6; extra == \"socks\"\nRequires-Python: >=3.8\n\n\
             Requires-Dist: not-a-header\n",
        );
        assert_eq!(meta.name, "requests");
        assert_eq!(meta.license, "Apache-2.0 continued");
        assert_eq!(meta.requires_dist.len(), 2);
        assert_eq!(meta.requires_python.as_deref(), Some(">=3.8"));
    }

    #[test]
    fn a_broken_wheel_is_an_error_not_a_panic() {
        assert!(read_metadata(b"PK\x03\x04 not really").is_err());
        assert!(read_metadata(b"").is_err());
    }

    /// A wheel with `names` as entries (each holding its name), and a `.dist-info`.
    fn wheel(names: &[&str]) -> Vec<u8> {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        for name in names
            .iter()
            .chain(&["evil-1.0.dist-info/METADATA", "evil-1.0.dist-info/WHEEL"])
        {
            zip.start_file(*name, options).unwrap();
            zip.write_all(name.as_bytes()).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn an_entry_that_leaves_site_packages_is_refused_and_nothing_is_written() {
        let site = VfsPath::parse("/opt/site-packages").unwrap();
        for attack in [
            "../../../etc/profile",
            "/etc/profile",
            "evil/../../escape.py",
            "evil-1.0.data/purelib/../../../../escape.py",
        ] {
            let fs = crate::testing::sandbox();
            let bytes = wheel(&["evil/__init__.py", attack]);
            let Err(err) = unpack(&fs, &site, &bytes) else {
                panic!("{attack}: installed");
            };
            assert!(err.0.contains("leaves"), "{attack}: {err:?}");
            let written = fs
                .mem()
                .read(&VfsPath::parse("/opt/site-packages/evil/__init__.py").unwrap());
            assert!(
                written.is_err(),
                "{attack}: a file was written before the refusal"
            );
            for outside in ["/etc/profile", "/escape.py", "/opt/escape.py"] {
                assert!(
                    fs.mem().read(&VfsPath::parse(outside).unwrap()).is_err(),
                    "{attack}"
                );
            }
        }
        // The same wheel without the attack installs.
        let fs = crate::testing::sandbox();
        assert_eq!(
            unpack(&fs, &site, &wheel(&["evil/__init__.py"])).unwrap(),
            3
        );
    }
}
