//! Random operation sequences run against `MemFs` and against a model simple enough to be
//! obviously right (a map from path to node); every result and the whole tree must agree.
#![allow(clippy::unwrap_used)] // Test code: a failed unwrap is a failed test.

use futures::executor::block_on;
use proptest::prelude::*;
use sandtab_vfs::storage::{MemoryStore, fsck};
use sandtab_vfs::{ErrorKind, FileKind, ManualClock, MemFs, Quota, SandboxFs, VfsError, VfsPath};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    File(Vec<u8>),
    Dir,
}

/// The model: every path that exists, root included, with its node.
#[derive(Debug, Clone)]
struct Model {
    nodes: BTreeMap<VfsPath, Node>,
}

type Outcome = Result<Option<Vec<u8>>, ErrorKind>;

impl Model {
    fn new() -> Self {
        Self {
            nodes: BTreeMap::from([(VfsPath::root(), Node::Dir)]),
        }
    }

    /// The error resolving `path`'s parent gives, walking from the root.
    fn parent_error(&self, path: &VfsPath) -> Option<ErrorKind> {
        let mut prefix = VfsPath::root();
        let parents = &path.components()[..path.components().len().saturating_sub(1)];
        for name in parents {
            match self.nodes.get(&prefix) {
                Some(Node::Dir) => {}
                Some(Node::File(_)) => return Some(ErrorKind::NotADirectory),
                None => return Some(ErrorKind::NotFound),
            }
            prefix = prefix.join(name).unwrap();
        }
        match self.nodes.get(&prefix) {
            Some(Node::Dir) => None,
            Some(Node::File(_)) => Some(ErrorKind::NotADirectory),
            None => Some(ErrorKind::NotFound),
        }
    }

    fn lookup(&self, path: &VfsPath) -> Result<&Node, ErrorKind> {
        if let Some(err) = self.parent_error(path).filter(|_| !path.is_root()) {
            return Err(err);
        }
        self.nodes.get(path).ok_or(ErrorKind::NotFound)
    }

    fn children(&self, dir: &VfsPath) -> Vec<VfsPath> {
        self.nodes
            .keys()
            .filter(|p| p.parent().as_ref() == Some(dir))
            .cloned()
            .collect()
    }

    fn remove_tree(&mut self, path: &VfsPath) {
        self.nodes.retain(|p, _| !p.starts_with(path));
    }

    fn apply(&mut self, op: &Op) -> Outcome {
        match op {
            Op::Write(path, data) | Op::Append(path, data) | Op::WriteAt(path, _, data) => {
                if path.is_root() {
                    return Err(ErrorKind::AlreadyExists);
                }
                if let Some(err) = self.parent_error(path) {
                    return Err(err);
                }
                let old = match self.nodes.get(path) {
                    Some(Node::Dir) => return Err(ErrorKind::IsADirectory),
                    Some(Node::File(old)) if !matches!(op, Op::Write(..)) => old.clone(),
                    _ => Vec::new(),
                };
                let mut new = old;
                if let Op::WriteAt(_, offset, _) = op {
                    let end = offset + data.len();
                    if new.len() < end {
                        new.resize(end, 0);
                    }
                    new[*offset..end].copy_from_slice(data);
                } else {
                    new.extend_from_slice(data);
                }
                self.nodes.insert(path.clone(), Node::File(new));
                Ok(None)
            }
            Op::Mkdir(path) => {
                if path.is_root() || self.nodes.contains_key(path) {
                    return Err(ErrorKind::AlreadyExists);
                }
                if let Some(err) = self.parent_error(path) {
                    return Err(err);
                }
                self.nodes.insert(path.clone(), Node::Dir);
                Ok(None)
            }
            Op::RemoveFile(path) | Op::RemoveDir(path) | Op::RemoveAll(path) => {
                if path.is_root() {
                    return Err(ErrorKind::Busy);
                }
                let node = self.lookup(path)?.clone();
                match (op, node) {
                    (Op::RemoveFile(_), Node::Dir) => return Err(ErrorKind::IsADirectory),
                    (Op::RemoveDir(_), Node::File(_)) => return Err(ErrorKind::NotADirectory),
                    (Op::RemoveDir(_), Node::Dir) if !self.children(path).is_empty() => {
                        return Err(ErrorKind::DirectoryNotEmpty);
                    }
                    _ => {}
                }
                self.remove_tree(path);
                Ok(None)
            }
            Op::Rename(from, to) => {
                if from.is_root() {
                    return Err(ErrorKind::Busy);
                }
                let moving = self.lookup(from)?.clone();
                if to.is_root() {
                    return Err(ErrorKind::Busy);
                }
                if let Some(err) = self.parent_error(to) {
                    return Err(err);
                }
                if moving == Node::Dir && to.parent().unwrap().starts_with(from) {
                    return Err(ErrorKind::InvalidInput);
                }
                if from == to {
                    return Ok(None);
                }
                match (self.nodes.get(to), &moving) {
                    (Some(Node::Dir), Node::Dir) if !self.children(to).is_empty() => {
                        return Err(ErrorKind::DirectoryNotEmpty);
                    }
                    (Some(Node::Dir), Node::File(_)) => return Err(ErrorKind::IsADirectory),
                    (Some(Node::File(_)), Node::Dir) => return Err(ErrorKind::NotADirectory),
                    _ => {}
                }
                self.remove_tree(to);
                let moved: Vec<(VfsPath, Node)> = self
                    .nodes
                    .iter()
                    .filter(|(p, _)| p.starts_with(from))
                    .map(|(p, n)| (p.clone(), n.clone()))
                    .collect();
                self.remove_tree(from);
                for (path, node) in moved {
                    let rest = &path.components()[from.components().len()..];
                    let new_path = to.join(&rest.join("/")).unwrap();
                    self.nodes.insert(new_path, node);
                }
                Ok(None)
            }
            Op::Truncate(path, len) => match self.lookup(path)? {
                Node::Dir => Err(ErrorKind::IsADirectory),
                Node::File(data) => {
                    let mut data = data.clone();
                    data.resize(*len, 0);
                    self.nodes.insert(path.clone(), Node::File(data));
                    Ok(None)
                }
            },
            Op::Read(path) => match self.lookup(path)? {
                Node::File(data) => Ok(Some(data.clone())),
                Node::Dir => Err(ErrorKind::IsADirectory),
            },
            Op::List(path) => match self.lookup(path)? {
                Node::Dir => {
                    let listing = self
                        .children(path)
                        .iter()
                        .map(|p| p.file_name().unwrap().to_owned())
                        .collect::<Vec<_>>()
                        .join(",");
                    Ok(Some(listing.into_bytes()))
                }
                Node::File(_) => Err(ErrorKind::NotADirectory),
            },
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Write(VfsPath, Vec<u8>),
    Append(VfsPath, Vec<u8>),
    WriteAt(VfsPath, usize, Vec<u8>),
    Truncate(VfsPath, usize),
    Mkdir(VfsPath),
    RemoveFile(VfsPath),
    RemoveDir(VfsPath),
    RemoveAll(VfsPath),
    Rename(VfsPath, VfsPath),
    Read(VfsPath),
    List(VfsPath),
}

fn apply_real(fs: &MemFs, op: &Op) -> Outcome {
    let unit = |r: Result<(), sandtab_vfs::VfsError>| r.map(|()| None).map_err(|e| e.kind());
    match op {
        Op::Write(p, data) => unit(fs.write(p, data)),
        Op::Append(p, data) => unit(fs.append(p, data)),
        Op::WriteAt(p, offset, data) => unit(fs.write_at(p, *offset as u64, data)),
        Op::Truncate(p, len) => unit(fs.truncate(p, *len as u64)),
        Op::Mkdir(p) => unit(fs.create_dir(p)),
        Op::RemoveFile(p) => unit(fs.remove_file(p)),
        Op::RemoveDir(p) => unit(fs.remove_dir(p)),
        Op::RemoveAll(p) => unit(fs.remove_all(p)),
        Op::Rename(from, to) => unit(fs.rename(from, to)),
        Op::Read(p) => fs.read(p).map(Some).map_err(|e| e.kind()),
        Op::List(p) => fs
            .read_dir(p)
            .map(|entries| {
                let names: Vec<String> = entries.into_iter().map(|e| e.name).collect();
                Some(names.join(",").into_bytes())
            })
            .map_err(|e| e.kind()),
    }
}

/// Everything in the real tree, for comparison with the model.
fn snapshot(fs: &MemFs) -> BTreeMap<VfsPath, Node> {
    let mut nodes = BTreeMap::new();
    let mut pending = vec![VfsPath::root()];
    while let Some(dir) = pending.pop() {
        nodes.insert(dir.clone(), Node::Dir);
        for entry in fs.read_dir(&dir).unwrap() {
            let path = dir.join(&entry.name).unwrap();
            match entry.metadata.kind {
                FileKind::Directory => pending.push(path),
                _ => {
                    nodes.insert(path.clone(), Node::File(fs.read(&path).unwrap()));
                }
            }
        }
    }
    nodes
}

fn path() -> impl Strategy<Value = VfsPath> {
    // A small name space, so operations collide often.
    prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 0..=3)
        .prop_map(|names| VfsPath::parse(&names.join("/")).unwrap())
}

fn op() -> impl Strategy<Value = Op> {
    let data = prop::collection::vec(any::<u8>(), 0..8);
    prop_oneof![
        3 => (path(), data.clone()).prop_map(|(p, d)| Op::Write(p, d)),
        1 => (path(), data.clone()).prop_map(|(p, d)| Op::Append(p, d)),
        1 => (path(), 0..12usize, data).prop_map(|(p, o, d)| Op::WriteAt(p, o, d)),
        1 => (path(), 0..12usize).prop_map(|(p, n)| Op::Truncate(p, n)),
        3 => path().prop_map(Op::Mkdir),
        1 => path().prop_map(Op::RemoveFile),
        1 => path().prop_map(Op::RemoveDir),
        1 => path().prop_map(Op::RemoveAll),
        2 => (path(), path()).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => path().prop_map(Op::Read),
        1 => path().prop_map(Op::List),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn memfs_agrees_with_the_model(ops in prop::collection::vec(op(), 1..40)) {
        let fs = MemFs::new(Arc::new(ManualClock::default()));
        let mut model = Model::new();
        for (step, op) in ops.iter().enumerate() {
            let expected = model.apply(op);
            let actual = apply_real(&fs, op);
            prop_assert_eq!(&actual, &expected, "step {}: {:?}", step, op);
            prop_assert_eq!(snapshot(&fs), model.nodes.clone(), "tree after step {}: {:?}", step, op);
            let bytes: u64 = model.nodes.values().map(|n| match n {
                Node::File(d) => d.len() as u64,
                Node::Dir => 0,
            }).sum();
            prop_assert_eq!(fs.usage().bytes, bytes, "byte usage after step {}", step);
        }
    }
}

/// A step of the stored-sandbox test: a filesystem operation, or something storage does.
#[derive(Debug, Clone)]
enum StoredStep {
    Op(Op),
    /// Flush; what was flushed must survive a crash.
    Flush,
    /// The next flush is refused (as a browser's QuotaExceededError would).
    FailingFlush,
    /// The tab dies: reopen from the store, losing what was not flushed.
    Crash,
}

fn stored_step() -> impl Strategy<Value = StoredStep> {
    prop_oneof![
        8 => op().prop_map(StoredStep::Op),
        2 => Just(StoredStep::Flush),
        1 => Just(StoredStep::FailingFlush),
        1 => Just(StoredStep::Crash),
    ]
}

/// Loads what `op` will read from storage, as the shell's adapter does.
fn load_for(fs: &SandboxFs, op: &Op) {
    let _ = block_on(async {
        match op {
            Op::Append(p, _) | Op::WriteAt(p, _, _) | Op::Truncate(p, _) => {
                fs.load_for_write(p).await
            }
            Op::Read(p) => fs.load_for_read(p).await,
            _ => Ok(()),
        }
    });
}

fn open(store: &Arc<MemoryStore>) -> SandboxFs {
    let clock = Arc::new(ManualClock::default());
    block_on(SandboxFs::open(
        store.clone(),
        clock,
        Quota::UNLIMITED,
        Vec::new(),
    ))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Crash consistency: after any crash, the files are exactly those of the last
    /// successful flush; a refused flush changes nothing stored and loses nothing in memory.
    #[test]
    fn stored_sandbox_agrees_with_the_model(steps in prop::collection::vec(stored_step(), 1..40)) {
        let store = Arc::new(MemoryStore::new());
        let mut fs = open(&store);
        block_on(fs.flush()).unwrap();
        let mut model = Model::new();
        let mut flushed = model.clone();
        for (index, step) in steps.iter().enumerate() {
            match step {
                StoredStep::Op(op) => {
                    load_for(&fs, op);
                    let expected = model.apply(op);
                    let actual = apply_real(fs.mem(), op);
                    prop_assert_eq!(&actual, &expected, "step {}: {:?}", index, op);
                }
                StoredStep::Flush => {
                    block_on(fs.flush()).unwrap();
                    flushed = model.clone();
                    let report = block_on(fsck(store.as_ref())).unwrap();
                    prop_assert!(report.is_clean(), "fsck after step {}: {:?}", index, report.problems);
                }
                StoredStep::FailingFlush if fs.mem().has_unflushed_changes() => {
                    store.fail_next_commit(VfsError::new(ErrorKind::QuotaExceeded, "/"));
                    prop_assert!(block_on(fs.flush()).is_err());
                }
                StoredStep::FailingFlush => {}
                StoredStep::Crash => {
                    fs = open(&store);
                    model = flushed.clone();
                }
            }
            block_on(fs.load_everything()).unwrap();
            prop_assert_eq!(snapshot(fs.mem()), model.nodes.clone(), "tree after step {}: {:?}", index, step);
        }
    }
}
