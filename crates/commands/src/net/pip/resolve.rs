//! Choosing what to install: each requirement's newest version that has a pure-Python
//! wheel for CPython 3.12, then its `Requires-Dist` (environment markers evaluated for
//! sandtab's CPython), breadth first. A requirement an installed distribution already
//! meets is kept (unless upgrading what was asked for); two that cannot both hold are
//! an error naming both.

use super::index::{self, IndexError, IndexFile};
use super::site::Installed;
use super::wheel::{self, Metadata, WheelName};
use pep508_rs::pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::{
    ExtraName, MarkerEnvironment, MarkerEnvironmentBuilder, Requirement, VersionOrUrl,
};
use sandtab_caps::Gate;
use std::collections::{HashMap, VecDeque};
use std::str::FromStr;

/// sandtab's CPython, as markers see it.
pub(crate) const PYTHON_VERSION: &str = "3.12.0";

pub(crate) fn environment() -> MarkerEnvironment {
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: "cpython",
        implementation_version: PYTHON_VERSION,
        os_name: "posix",
        platform_machine: "wasm32",
        platform_python_implementation: "CPython",
        platform_release: "",
        platform_system: "",
        platform_version: "",
        python_full_version: PYTHON_VERSION,
        python_version: "3.12",
        sys_platform: "wasi",
    })
    .expect("a valid version")
}

/// A distribution chosen and downloaded.
pub(crate) struct Chosen {
    pub name: String,
    pub version: String,
    pub wheel: Vec<u8>,
    /// The installed version it replaces.
    pub replaces: Option<Installed>,
}

/// Where resolving stopped.
#[derive(Debug)]
pub(crate) enum ResolveError {
    /// The index could not be read (or refused).
    Index(IndexError),
    /// A message for `ERROR:` lines.
    Message(String),
}

impl From<IndexError> for ResolveError {
    fn from(err: IndexError) -> Self {
        ResolveError::Index(err)
    }
}

/// What resolving is asked to do.
pub(crate) struct Request<'a> {
    pub gate: &'a Gate,
    pub index: &'a str,
    pub installed: &'a [Installed],
    pub site: &'a str,
    pub upgrade: bool,
    pub force_reinstall: bool,
    pub no_deps: bool,
    pub pre: bool,
}

/// Progress lines, as pip prints them, sent as they happen.
pub(crate) trait Progress {
    fn line(&mut self, text: String) -> impl std::future::Future<Output = ()>;
}

/// Resolves `wanted` (requirements as written) and downloads what must be installed.
pub(crate) async fn resolve(
    request: &Request<'_>,
    wanted: &[String],
    progress: &mut impl Progress,
) -> Result<Vec<Chosen>, ResolveError> {
    let env = environment();
    let python = Version::from_str(PYTHON_VERSION).expect("a valid version");
    let mut queue: VecDeque<(Requirement, Vec<ExtraName>, Option<String>)> = VecDeque::new();
    for text in wanted {
        let requirement = Requirement::from_str(text).map_err(|err| {
            ResolveError::Message(format!("Invalid requirement: '{text}': {err}"))
        })?;
        queue.push_back((requirement, Vec::new(), None));
    }
    let installed: HashMap<String, &Installed> = request
        .installed
        .iter()
        .map(|dist| (dist.key(), dist))
        .collect();
    // Name -> the version decided on, and the extras whose requirements were followed.
    let mut decided: HashMap<String, (Version, Vec<ExtraName>, Metadata)> = HashMap::new();
    let mut chosen = Vec::new();
    while let Some((requirement, parent_extras, from)) = queue.pop_front() {
        if !requirement.marker.evaluate(&env, &parent_extras) {
            continue;
        }
        let key = requirement.name.to_string();
        let spec = match &requirement.version_or_url {
            None => None,
            Some(VersionOrUrl::VersionSpecifier(spec)) => Some(spec.clone()),
            Some(VersionOrUrl::Url(url)) => {
                return Err(ResolveError::Message(format!(
                    "{requirement}: requirements by URL ({url}) are not supported; name a version from the index"
                )));
            }
        };
        let top_level = from.is_none();
        if let Some((version, extras, meta)) = decided.get_mut(&key) {
            if !spec.as_ref().is_none_or(|spec| spec.contains(version)) {
                return Err(ResolveError::Message(format!(
                    "Cannot install {}: it needs {requirement}, but {key} {version} is already chosen{}",
                    from.as_deref().unwrap_or("the requested packages"),
                    " (two requirements that cannot both hold)"
                )));
            }
            let new: Vec<ExtraName> = requirement
                .extras
                .iter()
                .filter(|extra| !extras.contains(extra))
                .cloned()
                .collect();
            if !new.is_empty() && !request.no_deps {
                extras.extend(new.iter().cloned());
                follow(&mut queue, meta, &new, &key);
            }
            continue;
        }
        if let Some(dist) = installed.get(&key) {
            let version = Version::from_str(&dist.meta.version).ok();
            let keep = version
                .as_ref()
                .is_some_and(|version| spec.as_ref().is_none_or(|spec| spec.contains(version)))
                && !(top_level && (request.upgrade || request.force_reinstall));
            if let (true, Some(version)) = (keep, version) {
                progress
                    .line(format!(
                        "Requirement already satisfied: {requirement} in {} ({version})",
                        request.site
                    ))
                    .await;
                if !request.no_deps {
                    follow(&mut queue, &dist.meta, &requirement.extras, &key);
                }
                decided.insert(
                    key,
                    (version, requirement.extras.clone(), dist.meta.clone()),
                );
                continue;
            }
        }
        match &from {
            Some(from) => {
                progress
                    .line(format!("Collecting {requirement} (from {from})"))
                    .await
            }
            None => progress.line(format!("Collecting {requirement}")).await,
        }
        let files = match Box::pin(index::project_files(request.gate, request.index, &key)).await {
            Err(IndexError::NotFound) => Vec::new(),
            other => other?,
        };
        let pre = request.pre
            || spec
                .as_ref()
                .is_some_and(|spec| spec.iter().any(|s| s.any_prerelease()));
        let (version, file) = pick(&files, spec.as_ref(), pre, &python).map_err(|why| {
            ResolveError::Message(match why {
                NoPick::Nothing(versions) => format!(
                    "Could not find a version that satisfies the requirement {requirement} (from versions: {})\nERROR: No matching distribution found for {key}",
                    if versions.is_empty() { "none".to_owned() } else { versions.join(", ") }
                ),
                NoPick::NotPure(version, kinds) => format!(
                    "{key} {version} has no pure-Python wheel (py3-none-any), only {}: sandtab's CPython (WebAssembly) cannot load compiled extensions",
                    kinds.join(", ")
                ),
            })
        })?;
        let bytes = Box::pin(index::download(request.gate, file)).await?;
        progress
            .line(format!(
                "  Downloading {} ({})",
                file.filename,
                size(bytes.len())
            ))
            .await;
        let meta = wheel::read_metadata(&bytes)
            .map_err(|err| ResolveError::Message(format!("{}: {}", file.filename, err.0)))?;
        if let Some(needs) = &meta.requires_python
            && VersionSpecifiers::from_str(needs).is_ok_and(|needs| !needs.contains(&python))
        {
            return Err(ResolveError::Message(format!(
                "{key} {version} requires Python {needs}; sandtab's CPython is {PYTHON_VERSION}"
            )));
        }
        if !request.no_deps {
            follow(&mut queue, &meta, &requirement.extras, &key);
        }
        let name = if meta.name.is_empty() {
            key.clone()
        } else {
            meta.name.clone()
        };
        chosen.push(Chosen {
            name,
            version: version.to_string(),
            wheel: bytes,
            replaces: installed.get(&key).map(|dist| (*dist).clone()),
        });
        decided.insert(key, (version, requirement.extras.clone(), meta));
    }
    Ok(chosen)
}

/// A size as pip prints it (`64.9 kB`, `1.2 MB`).
fn size(bytes: usize) -> String {
    match bytes {
        0..1000 => format!("{bytes} bytes"),
        1000..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

/// Queues the requirements of `meta` (with `extras` asked for), as required by `from`.
fn follow(
    queue: &mut VecDeque<(Requirement, Vec<ExtraName>, Option<String>)>,
    meta: &Metadata,
    extras: &[ExtraName],
    from: &str,
) {
    for text in &meta.requires_dist {
        // A requirement the index's own metadata gets wrong is skipped, as pip warns.
        if let Ok(requirement) = Requirement::from_str(text) {
            queue.push_back((requirement, extras.to_vec(), Some(from.to_owned())));
        }
    }
}

enum NoPick {
    /// No version fits (the versions there are, newest first).
    Nothing(Vec<String>),
    /// The best version that fits has only files sandtab cannot install.
    NotPure(String, Vec<String>),
}

/// The newest version that `spec` allows with a pure-Python wheel, and that wheel.
fn pick<'f>(
    files: &'f [IndexFile],
    spec: Option<&VersionSpecifiers>,
    pre: bool,
    python: &Version,
) -> Result<(Version, &'f IndexFile), NoPick> {
    let mut candidates: Vec<(Version, &IndexFile, Option<WheelName>)> = Vec::new();
    let mut versions: Vec<Version> = Vec::new();
    for file in files.iter().filter(|file| !file.yanked) {
        let wheel = WheelName::parse(&file.filename);
        let version_text = match &wheel {
            Some(wheel) => wheel.version.clone(),
            None => sdist_version(&file.filename).unwrap_or_default(),
        };
        let Ok(version) = Version::from_str(&version_text) else {
            continue;
        };
        if !versions.contains(&version) {
            versions.push(version.clone());
        }
        if version.any_prerelease() && !pre {
            continue;
        }
        if !spec.is_none_or(|spec| spec.contains(&version)) {
            continue;
        }
        let python_ok = file.requires_python.as_deref().is_none_or(|needs| {
            VersionSpecifiers::from_str(needs).map_or(true, |needs| needs.contains(python))
        });
        if python_ok {
            candidates.push((version, file, wheel));
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0));
    if let Some((version, file, _)) = candidates
        .iter()
        .find(|(_, _, wheel)| wheel.as_ref().is_some_and(WheelName::is_pure))
    {
        return Ok((version.clone(), file));
    }
    if let Some((best, _, _)) = candidates.first() {
        let kinds = candidates
            .iter()
            .filter(|(version, _, _)| version == best)
            .map(|(_, file, wheel)| match wheel {
                Some(wheel) => format!("{} wheels", wheel.tags()),
                None => format!("a source distribution ({})", file.filename),
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .take(4)
            .collect();
        return Err(NoPick::NotPure(best.to_string(), kinds));
    }
    versions.sort_by(|a, b| b.cmp(a));
    Err(NoPick::Nothing(
        versions.iter().take(20).map(Version::to_string).collect(),
    ))
}

/// The version in a source distribution's name (`name-1.0.tar.gz`).
fn sdist_version(filename: &str) -> Option<String> {
    let stem = filename
        .strip_suffix(".tar.gz")
        .or_else(|| filename.strip_suffix(".zip"))?;
    Some(stem.rsplit_once('-')?.1.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> IndexFile {
        IndexFile {
            filename: name.into(),
            url: format!("https://f.test/{name}"),
            sha256: None,
            requires_python: None,
            yanked: false,
        }
    }

    #[test]
    fn the_newest_pure_wheel_that_fits_is_picked() {
        let python = Version::from_str(PYTHON_VERSION).unwrap();
        let files = vec![
            file("a-1.0-py3-none-any.whl"),
            file("a-2.0-py3-none-any.whl"),
            file("a-3.0b1-py3-none-any.whl"),
            file("a-2.5.tar.gz"),
            IndexFile {
                requires_python: Some(">=3.13".into()),
                ..file("a-2.1-py3-none-any.whl")
            },
            IndexFile {
                yanked: true,
                ..file("a-2.2-py3-none-any.whl")
            },
        ];
        let (version, picked) = pick(&files, None, false, &python).ok().unwrap();
        assert_eq!(
            (version.to_string(), picked.filename.as_str()),
            ("2.0".into(), "a-2.0-py3-none-any.whl")
        );
        let spec = VersionSpecifiers::from_str("<2").unwrap();
        assert_eq!(
            pick(&files, Some(&spec), false, &python)
                .ok()
                .unwrap()
                .0
                .to_string(),
            "1.0"
        );
        assert_eq!(
            pick(&files, None, true, &python)
                .ok()
                .unwrap()
                .0
                .to_string(),
            "3.0b1"
        );
        let spec = VersionSpecifiers::from_str(">=9").unwrap();
        assert!(
            matches!(pick(&files, Some(&spec), false, &python), Err(NoPick::Nothing(v)) if v[0] == "3.0b1")
        );
    }

    #[test]
    fn a_package_with_only_compiled_wheels_says_so() {
        let python = Version::from_str(PYTHON_VERSION).unwrap();
        let files = vec![
            file("numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl"),
            file("numpy-2.1.0.tar.gz"),
        ];
        let Err(NoPick::NotPure(version, kinds)) = pick(&files, None, false, &python) else {
            panic!("picked a compiled wheel")
        };
        assert_eq!(version, "2.1.0");
        assert_eq!(kinds.len(), 2, "{kinds:?}");
    }

    #[test]
    fn markers_are_evaluated_for_sandtabs_cpython() {
        let env = environment();
        for (text, holds) in [
            ("x; python_version >= '3.8'", true),
            ("x; python_version < '3.10'", false),
            ("x; sys_platform == 'win32'", false),
            ("x; platform_python_implementation == 'CPython'", true),
            ("x; extra == 'socks'", false),
        ] {
            let requirement: Requirement = Requirement::from_str(text).unwrap();
            assert_eq!(requirement.marker.evaluate(&env, &[]), holds, "{text}");
        }
    }
}
