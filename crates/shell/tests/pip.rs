//! `pip` against a package index behind scripted doors that serve the real wheels
//! `./dev setup` fetched (target/wheels) by the simple API's JSON, then the packages
//! used by CPython (target/guests): `requests` through the gate, `importlib.metadata`.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use sandtab_caps::{BoxFuture, Capabilities, Code, Denial, DoorRequest, Doors, HttpResponse};
use sandtab_shell::{ExecOutcome, Gate, GuestEngine, Shell, ShellLimits, WallClock};
use sandtab_vfs::{Quota, SandboxFs};
use serde_json::json;
use sha2::Digest;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const INDEX: &str = "https://idx.test/simple";

fn target(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join(dir)
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

fn hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An index (JSON simple API) over target/wheels, an API at http://api.test, and a
/// log of every URL asked.
struct Index {
    wheels: Vec<(String, Vec<u8>)>,
    asked: Mutex<Vec<String>>,
}

impl Index {
    fn new() -> Index {
        let dir = target("wheels");
        let mut wheels = Vec::new();
        for entry in std::fs::read_dir(&dir)
            .unwrap_or_else(|err| panic!("{}: {err}. Fetched by `./dev setup`.", dir.display()))
        {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            wheels.push((name, std::fs::read(&path).unwrap()));
        }
        assert!(
            wheels.len() >= 7,
            "target/wheels holds {} wheels",
            wheels.len()
        );
        Index {
            wheels,
            asked: Mutex::default(),
        }
    }

    fn page(&self, project: &str) -> Option<serde_json::Value> {
        let mut files: Vec<serde_json::Value> = self
            .wheels
            .iter()
            .filter(|(file, _)| normalize(file.split('-').next().unwrap()) == project)
            .map(|(file, bytes)| {
                json!({"filename": file, "url": format!("../../files/{file}"),
                       "hashes": {"sha256": hex(bytes)}, "requires-python": ">=3.7"})
            })
            .collect();
        match project {
            // Only compiled wheels and a source distribution.
            "numpy" => files.extend([
                json!({"filename": "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl", "url": "/files/x", "hashes": {}}),
                json!({"filename": "numpy-2.1.0.tar.gz", "url": "/files/y", "hashes": {}}),
            ]),
            // A wheel whose bytes do not match the index's hash.
            "tampered" => files.push(json!({"filename": "tampered-1.0-py3-none-any.whl",
                "url": "/files/six-1.16.0-py2.py3-none-any.whl", "hashes": {"sha256": "00".repeat(32)}})),
            _ => {}
        }
        (!files.is_empty())
            .then(|| json!({"meta": {"api-version": "1.0"}, "name": project, "files": files}))
    }
}

fn answer(url: &str, status: u16, kind: &str, body: Vec<u8>) -> HttpResponse {
    HttpResponse {
        status,
        status_text: if status == 200 {
            "OK".into()
        } else {
            "Not Found".into()
        },
        headers: vec![("content-type".into(), kind.into())],
        url: url.into(),
        redirected: false,
        body,
    }
}

impl Doors for Index {
    fn call_tool(&self, _: &str, _: &str) -> BoxFuture<'static, Result<String, String>> {
        Box::pin(async { Err("no tools".to_owned()) })
    }

    fn fetch(&self, request: DoorRequest) -> BoxFuture<'static, Result<HttpResponse, Denial>> {
        let url = request.url.clone();
        self.asked.lock().unwrap().push(url.clone());
        let response = if let Some(project) = url
            .strip_prefix(&format!("{INDEX}/"))
            .and_then(|rest| rest.strip_suffix('/'))
        {
            match self.page(project) {
                Some(page) => answer(
                    &url,
                    200,
                    "application/vnd.pypi.simple.v1+json",
                    page.to_string().into_bytes(),
                ),
                None => answer(&url, 404, "text/plain", b"no such project".to_vec()),
            }
        } else if let Some(file) = url.strip_prefix("https://idx.test/files/") {
            match self.wheels.iter().find(|(name, _)| name == file) {
                Some((_, bytes)) => answer(&url, 200, "application/octet-stream", bytes.clone()),
                None => answer(&url, 404, "text/plain", Vec::new()),
            }
        } else if url == "http://api.test/json" {
            answer(&url, 200, "application/json", br#"{"n": 42}"#.to_vec())
        } else {
            return Box::pin(async move {
                Err(Denial::new(Code::NetFailed, format!("no answer for {url}")))
            });
        };
        Box::pin(async move { Ok(response) })
    }

    fn now_ms(&self) -> f64 {
        1_714_979_289_000.0
    }
}

fn shell() -> (Shell, Arc<Index>) {
    let index = Arc::new(Index::new());
    let doc = json!({"network": {"allow": [{"origin": "https://idx.test"}, {"origin": "http://api.test"}]}});
    let gate = Arc::new(Gate::new(
        Capabilities::from_value(&doc).unwrap(),
        index.clone(),
    ));
    let fs = Arc::new(
        SandboxFs::in_memory(
            Arc::new(WallClock),
            Quota::UNLIMITED,
            vec![sandtab_shell::python_support::mount()],
        )
        .unwrap(),
    );
    let limits = ShellLimits::default();
    let engine = GuestEngine::new(limits.guest.call_depth);
    let host = Arc::new(sandtab_wasi::NativeHost::default());
    let mut shell = Shell::with_gate(fs, limits, engine, host, gate).unwrap();
    let python = std::fs::read(target("guests/python.wasm"))
        .expect("target/guests/python.wasm, built by `./dev setup`");
    shell.install_program(&["python3", "python"], Arc::new(python), None);
    (shell, index)
}

#[track_caller]
fn ok(out: &ExecOutcome) {
    assert_eq!(
        out.exit_code,
        0,
        "stdout: {}\nstderr: {}",
        out.stdout_text(),
        out.stderr_text()
    );
}

#[tokio::test]
async fn pip_installs_requests_with_its_dependencies_and_python_uses_it() {
    let (mut shell, index) = shell();
    let out = shell
        .exec(&format!(
            "export PIP_INDEX_URL={INDEX}; pip install requests"
        ))
        .await;
    ok(&out);
    let text = out.stdout_text();
    assert!(
        text.starts_with("Collecting requests\n  Downloading requests-2.32.3-py3-none-any.whl"),
        "{text}"
    );
    assert!(text.contains("Collecting urllib3>=1.21.1,<3 (from requests)\n  Downloading urllib3-2.2.3-py3-none-any.whl (126.3 kB)\n"), "{text}");
    assert!(
        text.ends_with("Successfully installed certifi-2024.8.30 charset-normalizer-3.4.0 idna-3.10 requests-2.32.3 urllib3-2.2.3\n"),
        "{text}"
    );
    // Only what requests needs was fetched: a page and a wheel each.
    assert_eq!(
        index.asked.lock().unwrap().len(),
        10,
        "{:?}",
        index.asked.lock().unwrap()
    );

    let out = shell
        .exec(
            "python3 -c 'import requests, importlib.metadata as m\n\
             r = requests.get(\"http://api.test/json\")\n\
             print(r.status_code, r.json()[\"n\"], m.version(\"urllib3\"), requests.__version__)\n\
             try:\n    requests.get(\"http://evil.test/\")\n\
             except requests.ConnectionError as err:\n    print(\"CAP_NET_DENIED\" in str(err))'",
        )
        .await;
    ok(&out);
    assert_eq!(out.stdout_text(), "200 42 2.2.3 2.32.3\nTrue\n");

    // Installed already: nothing is fetched again.
    let before = index.asked.lock().unwrap().len();
    let out = shell
        .exec(&format!("python3 -m pip install -i {INDEX} 'requests>=2'"))
        .await;
    ok(&out);
    assert!(out.stdout_text().starts_with("Requirement already satisfied: requests>=2 in /opt/sandtab/lib/python3.12/site-packages (2.32.3)"), "{}", out.stdout_text());
    assert_eq!(index.asked.lock().unwrap().len(), before);

    let out = shell.exec("pip freeze; pip list | head -3; pip show requests | grep -E '^(Name|Version|Requires|Location)'").await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "certifi==2024.8.30\ncharset-normalizer==3.4.0\nidna==3.10\nrequests==2.32.3\nurllib3==2.2.3\n\
         Package            Version\n------------------ ---------\ncertifi            2024.8.30\n\
         Name: requests\nVersion: 2.32.3\nLocation: /opt/sandtab/lib/python3.12/site-packages\n\
         Requires: certifi, charset-normalizer, idna, urllib3\n"
    );
}

#[tokio::test]
async fn requirements_files_uninstall_and_reinstall() {
    let (mut shell, _) = shell();
    let out = shell
        .exec(&format!(
            "printf '# deps\\n-i {INDEX}\\nsix==1.16.0  # pinned\\nattrs>=20 ; python_version >= \"3.8\"\\nidna ; sys_platform == \"win32\"\\n' > req.txt && pip install -q -r req.txt && pip freeze"
        ))
        .await;
    ok(&out);
    assert_eq!(
        out.stdout_text(),
        "attrs==24.2.0\nsix==1.16.0\n",
        "a marker for Windows is skipped"
    );
    let out = shell
        .exec("python3 -c 'import six, attrs; print(six.__version__, attrs.__version__)'; pip uninstall -y six; pip freeze; ls /opt/sandtab/lib/python3.12/site-packages | grep -c six; python3 -c 'import six'")
        .await;
    assert_eq!(
        out.stdout_text(),
        "1.16.0 24.2.0\nFound existing installation: six 1.16.0\nUninstalling six-1.16.0:\n  Successfully uninstalled six-1.16.0\nattrs==24.2.0\n0\n"
    );
    assert!(
        out.stderr_text().contains("No module named 'six'"),
        "{}",
        out.stderr_text()
    );
    let out = shell
        .exec(&format!(
            "pip install -i {INDEX} --force-reinstall attrs | tail -2"
        ))
        .await;
    ok(&out);
    assert!(
        out.stdout_text().contains(
            "Successfully uninstalled attrs-24.2.0\nSuccessfully installed attrs-24.2.0\n"
        ),
        "{}",
        out.stdout_text()
    );
}

#[tokio::test]
async fn what_cannot_be_installed_says_why() {
    let (mut shell, _) = shell();
    for (command, code, message) in [
        (
            format!("pip install -i {INDEX} numpy"),
            1,
            "ERROR: numpy 2.1.0 has no pure-Python wheel (py3-none-any), only a source distribution (numpy-2.1.0.tar.gz), cp312-cp312-manylinux_2_17_x86_64 wheels: sandtab's CPython (WebAssembly) cannot load compiled extensions\n",
        ),
        (
            format!("pip install -i {INDEX} nosuchthing"),
            1,
            "ERROR: Could not find a version that satisfies the requirement nosuchthing (from versions: none)\nERROR: No matching distribution found for nosuchthing\n",
        ),
        (
            format!("pip install -i {INDEX} 'six>=2'"),
            1,
            "ERROR: Could not find a version that satisfies the requirement six>=2 (from versions: 1.16.0)\nERROR: No matching distribution found for six\n",
        ),
        (
            format!("pip install -i {INDEX} tampered"),
            1,
            "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE INDEX:\n",
        ),
        (
            "pip install six".to_owned(),
            1,
            "ERROR: CAP_NET_DENIED: https://pypi.org is not a granted origin",
        ),
        (
            "pip install 'six @ https://x/y.whl'".to_owned(),
            1,
            "requirements by URL",
        ),
        (
            "pip install".to_owned(),
            1,
            "ERROR: You must give at least one requirement",
        ),
        (
            "pip install --bogus six".to_owned(),
            2,
            "ERROR: no such option: --bogus\n",
        ),
        (
            "pip install -r missing.txt".to_owned(),
            2,
            "ERROR: Could not open requirements file",
        ),
        (
            "pip uninstall -y six".to_owned(),
            0,
            "WARNING: Skipping six as it is not installed.\n",
        ),
        (
            "pip show six".to_owned(),
            1,
            "WARNING: Package(s) not found: six\n",
        ),
    ] {
        let out = shell.exec(&command).await;
        assert_eq!(out.exit_code, code, "{command}: {}", out.stderr_text());
        assert!(
            out.stderr_text().starts_with(message) || out.stderr_text().contains(message),
            "{command}: {}",
            out.stderr_text()
        );
    }
    let out = shell
        .exec("pip freeze; ls /opt/sandtab/lib 2>/dev/null | wc -l")
        .await;
    assert_eq!(out.stdout_text(), "0\n", "nothing was installed");
}
