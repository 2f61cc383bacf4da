//! Runs a case in real bash, in a fresh temporary directory standing in for the
//! sandbox's home, with a fixed environment. Paths under that directory are reported as
//! the sandbox's `/home/agent`.

use crate::case::{self, Case, Kind, Outcome, Tree};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Seconds a case may run in bash.
const TIMEOUT_SECONDS: &str = "20";

pub fn run(case: &Case, scratch: &Path) -> Result<Outcome, String> {
    let home = scratch.join("home/agent");
    if scratch.exists() {
        std::fs::remove_dir_all(scratch)
            .map_err(|e| format!("clearing {}: {e}", scratch.display()))?;
    }
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    write_tree(&home, &case.files)?;
    let mut child = Command::new("timeout")
        .args([TIMEOUT_SECONDS, "bash", "--noprofile", "--norc", "-c"])
        .arg(&case.script)
        .current_dir(&home)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &home)
        .env("USER", "agent")
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .stdin(if case.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start bash: {e}"))?;
    if let Some(input) = &case.stdin {
        let mut pipe = child.stdin.take().ok_or("no stdin pipe")?;
        // A script that does not read its input may close it early.
        let _ = pipe.write_all(input.as_bytes());
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let home_text = home.to_string_lossy().into_owned();
    let localize = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&home_text, crate::HOME);
    let tree = read_tree(&home)?;
    Ok(Outcome {
        stdout: localize(&output.stdout),
        stderr: localize(&output.stderr),
        exit: output.status.code().unwrap_or(-1),
        files: Some(tree),
    })
}

fn write_tree(root: &Path, tree: &Tree) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    for (key, value) in tree {
        match case::parse_key(key)? {
            case::Entry::Dir { path, mode } => {
                let dir = root.join(&path);
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(mode))
                    .map_err(|e| e.to_string())?;
            }
            case::Entry::File { path, mode } => {
                let file = root.join(&path);
                if let Some(parent) = file.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                std::fs::write(&file, case::decode_contents(value)?).map_err(|e| e.to_string())?;
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode))
                    .map_err(|e| e.to_string())?;
            }
            case::Entry::Symlink { path } => {
                let link = root.join(&path);
                if let Some(parent) = link.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                std::os::unix::fs::symlink(value, &link).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn read_tree(root: &Path) -> Result<Tree, String> {
    use std::os::unix::fs::PermissionsExt;
    let mut tree = Tree::new();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| e.to_string())?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let meta = std::fs::symlink_metadata(entry.path()).map_err(|e| e.to_string())?;
            let mode = meta.permissions().mode();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(entry.path()).map_err(|e| e.to_string())?;
                tree.insert(
                    case::key(&relative, Kind::Symlink, 0),
                    target.to_string_lossy().into_owned(),
                );
            } else if meta.is_dir() {
                tree.insert(case::key(&relative, Kind::Dir, mode), String::new());
                pending.push((entry.path(), format!("{relative}/")));
            } else {
                let bytes = std::fs::read(entry.path()).map_err(|e| e.to_string())?;
                tree.insert(
                    case::key(&relative, Kind::File, mode),
                    case::encode_contents(&bytes),
                );
            }
        }
    }
    Ok(tree)
}
