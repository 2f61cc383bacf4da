//! Environment variables and a working directory for one exec: set on the session's
//! state before it runs, and put back afterwards, so that the session goes on as if the
//! exec had been `(cd DIR && VAR=value script)` — except that everything else the script
//! changes (other variables, functions, aliases) stays, as after any exec.

use crate::{Shell, ShellError};
use sandtab_vfs::{FileKind, VfsPath};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What an exec's overrides replaced, to put back when it ends.
#[derive(Debug)]
pub struct Overridden {
    cwd: Option<PathBuf>,
    /// Each variable the exec set (and `PWD` when it moved): its exported value, its
    /// shell value and its attributes before, each `None` when there was none.
    variables: Vec<(String, Saved)>,
}

type Saved = (Option<String>, Option<String>, Option<u8>);

/// Whether `name` can be a shell variable's name.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn save(state: &bashkit::ShellState, name: &str) -> (String, Saved) {
    (
        name.to_owned(),
        (
            state.env.get(name).cloned(),
            state.variables.get(name).cloned(),
            state.var_attrs.get(name).copied(),
        ),
    )
}

fn put<V>(map: &mut HashMap<String, V>, name: &str, value: Option<V>) {
    match value {
        Some(value) => {
            map.insert(name.to_owned(), value);
        }
        None => {
            map.remove(name);
        }
    }
}

impl Shell {
    /// Sets `env` (exported) and moves to `cwd` (absolute, or relative to the session's
    /// directory) for the next exec; [`Shell::restore_overrides`] puts back what they
    /// replaced. Nothing changes when either is invalid: a name that is not a variable
    /// name, or a directory that does not exist.
    pub fn apply_overrides(
        &mut self,
        env: &BTreeMap<String, String>,
        cwd: Option<&str>,
    ) -> Result<Option<Overridden>, ShellError> {
        if env.is_empty() && cwd.is_none() {
            return Ok(None);
        }
        if let Some(bad) = env.keys().find(|name| !is_variable_name(name)) {
            return Err(ShellError::InvalidExecOption(format!(
                "env: {bad:?} is not a variable name (letters, digits and '_', not starting with a digit)"
            )));
        }
        let mut state = self.bash.shell_state();
        let directory = match cwd {
            Some(cwd) => Some(self.directory(&state.cwd, cwd)?),
            None => None,
        };
        let mut saved = Overridden {
            cwd: directory.as_ref().map(|_| state.cwd.clone()),
            variables: env.keys().map(|name| save(&state, name)).collect(),
        };
        if let Some(directory) = directory {
            if !env.contains_key("PWD") {
                saved.variables.push(save(&state, "PWD"));
            }
            let directory = directory.to_string();
            state.variables.insert("PWD".to_owned(), directory.clone());
            state.cwd = PathBuf::from(directory);
        }
        for (name, value) in env {
            state.env.insert(name.clone(), value.clone());
            state.variables.insert(name.clone(), value.clone());
        }
        self.bash.restore_shell_state(&state);
        self.refresh_cwd_and_path();
        Ok(Some(saved))
    }

    /// Puts back what [`Shell::apply_overrides`] replaced; the rest of what the exec
    /// left (its exit status, other variables) stays.
    pub fn restore_overrides(&mut self, saved: Overridden) {
        let mut state = self.bash.shell_state();
        if let Some(cwd) = saved.cwd {
            state.cwd = cwd;
        }
        for (name, (exported, value, attrs)) in saved.variables {
            put(&mut state.env, &name, exported);
            put(&mut state.variables, &name, value);
            put(&mut state.var_attrs, &name, attrs);
        }
        self.bash.restore_shell_state(&state);
        self.refresh_cwd_and_path();
    }

    /// `cwd` resolved against `from`, if it names a directory.
    fn directory(&self, from: &std::path::Path, cwd: &str) -> Result<VfsPath, ShellError> {
        let joined = if cwd.starts_with('/') {
            cwd.to_owned()
        } else {
            format!("{}/{cwd}", from.to_string_lossy())
        };
        let path = VfsPath::parse(&joined)?;
        let metadata = self.fs.mem().stat(&path)?;
        if metadata.kind != FileKind::Directory {
            return Err(ShellError::InvalidExecOption(format!(
                "cwd: {path} is not a directory"
            )));
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::is_variable_name;

    #[test]
    fn variable_names_are_bash_names() {
        for good in ["A", "_", "a1", "_X_2"] {
            assert!(is_variable_name(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "A B", "é", "A=B"] {
            assert!(!is_variable_name(bad), "{bad}");
        }
    }
}
