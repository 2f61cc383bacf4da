//! Runs a case in sandtab's shell, natively, on a fresh in-memory sandbox.

use crate::case::{self, Case, Kind, Outcome, Tree};
use sandtab_shell::{Shell, ShellLimits, WallClock};
use sandtab_vfs::{FileKind, Quota, SandboxFs, VfsPath};
use std::sync::Arc;
use std::time::Duration;

pub async fn run(case: &Case) -> Result<Outcome, String> {
    let fs = Arc::new(
        SandboxFs::in_memory(Arc::new(WallClock), Quota::UNLIMITED, Vec::new())
            .map_err(|e| e.to_string())?,
    );
    let limits = ShellLimits {
        timeout: Duration::from_secs(20),
        ..ShellLimits::default()
    };
    let mut shell = Shell::new(fs.clone(), limits).map_err(|e| e.to_string())?;
    let home = VfsPath::parse(crate::HOME).map_err(|e| e.to_string())?;
    write_tree(&fs, &home, &case.files)?;
    let stdin = case.stdin.as_ref().map(|s| s.as_bytes().to_vec());
    let out = shell
        .exec_with_stdin(&case.script, stdin, &mut |_, _| {})
        .await;
    Ok(Outcome {
        stdout: out.stdout_text(),
        stderr: out.stderr_text(),
        exit: out.exit_code,
        files: Some(read_tree(&fs, &home)?),
    })
}

fn write_tree(fs: &SandboxFs, home: &VfsPath, tree: &Tree) -> Result<(), String> {
    let mem = fs.mem();
    let at = |path: &str| home.join(path).map_err(|e| e.to_string());
    for (key, value) in tree {
        match case::parse_key(key)? {
            case::Entry::Dir { path, mode } => {
                let dir = at(&path)?;
                mem.create_dir_all(&dir).map_err(|e| e.to_string())?;
                mem.set_mode(&dir, mode).map_err(|e| e.to_string())?;
            }
            case::Entry::File { path, mode } => {
                let file = at(&path)?;
                if let Some(parent) = file.parent() {
                    mem.create_dir_all(&parent).map_err(|e| e.to_string())?;
                }
                mem.write(&file, &case::decode_contents(value)?)
                    .map_err(|e| e.to_string())?;
                mem.set_mode(&file, mode).map_err(|e| e.to_string())?;
            }
            case::Entry::Symlink { path } => {
                let link = at(&path)?;
                if let Some(parent) = link.parent() {
                    mem.create_dir_all(&parent).map_err(|e| e.to_string())?;
                }
                mem.symlink(value, &link).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn read_tree(fs: &SandboxFs, home: &VfsPath) -> Result<Tree, String> {
    let mem = fs.mem();
    let mut tree = Tree::new();
    let mut pending = vec![(home.clone(), String::new())];
    while let Some((dir, prefix)) = pending.pop() {
        for entry in mem.read_dir(&dir).map_err(|e| e.to_string())? {
            let relative = format!("{prefix}{}", entry.name);
            let path = dir.join(&entry.name).map_err(|e| e.to_string())?;
            let mode = entry.metadata.mode;
            match entry.metadata.kind {
                FileKind::Symlink => {
                    let target = mem.read_link(&path).map_err(|e| e.to_string())?;
                    tree.insert(case::key(&relative, Kind::Symlink, 0), target);
                }
                FileKind::Directory => {
                    tree.insert(case::key(&relative, Kind::Dir, mode), String::new());
                    pending.push((path, format!("{relative}/")));
                }
                FileKind::File => {
                    let bytes = mem.read(&path).map_err(|e| e.to_string())?;
                    tree.insert(
                        case::key(&relative, Kind::File, mode),
                        case::encode_contents(&bytes),
                    );
                }
            }
        }
    }
    Ok(tree)
}
