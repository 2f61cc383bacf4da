//! The shell sessions of one sandbox. Each named session keeps its `cd`, variables,
//! functions, aliases and options from one exec to the next, as a terminal does; all of
//! them work on the same files, run the same installed programs and share the guest
//! engine's compiled modules. A fresh session runs one exec and is gone.

use crate::{
    Gate, GuestEngine, GuestHost, GuestLimits, ProgramSource, Shell, ShellError, ShellLimits,
};
use sandtab_vfs::SandboxFs;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The session an exec runs in when it names none.
pub const DEFAULT_SESSION: &str = "main";

/// How many named sessions a sandbox keeps at once (each holds a shell's state).
pub const MAX_SESSIONS: usize = 64;

/// A program installed into every session, present and future.
struct Installed {
    names: Vec<String>,
    source: Arc<ProgramSource>,
    sha256: Option<String>,
}

/// Named shell sessions over one filesystem.
pub struct Sessions {
    fs: Arc<SandboxFs>,
    limits: ShellLimits,
    engine: GuestEngine,
    host: Arc<dyn GuestHost>,
    gate: Arc<Gate>,
    programs: Vec<Installed>,
    shells: BTreeMap<String, Shell>,
    tape: Option<Arc<crate::replay::Tape>>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("names", &self.shells.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Sessions {
    /// Sessions on `fs` under `limits`, whose guests run on `engine` with `host`. The
    /// default session is made now, so a bad limit is reported here.
    pub fn new(
        fs: Arc<SandboxFs>,
        limits: ShellLimits,
        engine: GuestEngine,
        host: Arc<dyn GuestHost>,
    ) -> Result<Self, ShellError> {
        Self::with_gate(fs, limits, engine, host, crate::no_capabilities())
    }

    /// Sessions like [`Sessions::new`] whose doors out go through `gate`.
    pub fn with_gate(
        fs: Arc<SandboxFs>,
        limits: ShellLimits,
        engine: GuestEngine,
        host: Arc<dyn GuestHost>,
        gate: Arc<Gate>,
    ) -> Result<Self, ShellError> {
        let mut sessions = Self {
            fs,
            limits,
            engine,
            host,
            gate,
            programs: Vec::new(),
            shells: BTreeMap::new(),
            tape: None,
        };
        sessions.session(DEFAULT_SESSION)?;
        Ok(sessions)
    }

    /// The session `name`, made (in the home directory, with nothing set) if it does not
    /// exist yet.
    pub fn session(&mut self, name: &str) -> Result<&mut Shell, ShellError> {
        check_name(name)?;
        if !self.shells.contains_key(name) {
            if self.shells.len() >= MAX_SESSIONS {
                return Err(ShellError::TooManySessions(MAX_SESSIONS));
            }
            let shell = self.new_shell()?;
            self.shells.insert(name.to_owned(), shell);
        }
        self.shells
            .get_mut(name)
            .ok_or_else(|| ShellError::InvalidSessionName(name.to_owned()))
    }

    /// A session of its own for one exec: nothing carries over from other sessions but
    /// the files and the installed programs.
    pub fn fresh(&self) -> Result<Shell, ShellError> {
        self.new_shell()
    }

    /// Ends session `name`; whether there was one. The default session is made anew
    /// the next time it is used.
    pub fn close(&mut self, name: &str) -> bool {
        self.shells.remove(name).is_some()
    }

    /// Every session's state ([`Shell::export_state`]), by name.
    pub fn export_states(&self) -> Vec<(String, serde_json::Value)> {
        self.shells
            .iter()
            .map(|(name, shell)| (name.clone(), shell.export_state()))
            .collect()
    }

    /// The names of the sessions that exist, sorted.
    pub fn names(&self) -> Vec<String> {
        self.shells.keys().cloned().collect()
    }

    /// Puts every session, present and future, behind `tape` (see [`Shell::set_tape`]).
    pub fn set_tape(&mut self, tape: Arc<crate::replay::Tape>) {
        for shell in self.shells.values_mut() {
            shell.set_tape(tape.clone());
        }
        self.tape = Some(tape);
    }

    /// The tape of a recording or replaying sandbox.
    pub fn tape(&self) -> Option<&Arc<crate::replay::Tape>> {
        self.tape.as_ref()
    }

    /// The installed programs: their names and SHA-256 (when given).
    pub fn programs(&self) -> impl Iterator<Item = (&[String], Option<&str>)> {
        self.programs
            .iter()
            .map(|p| (p.names.as_slice(), p.sha256.as_deref()))
    }

    /// The gate every session's doors go through.
    pub fn gate(&self) -> &Arc<Gate> {
        &self.gate
    }

    /// The limits every session runs under.
    pub fn limits(&self) -> &ShellLimits {
        &self.limits
    }

    /// Installs a program as the commands `names` in every session, and in the
    /// sessions made later. Compiles it (once: sessions share the compiled module).
    pub fn install_program(
        &mut self,
        names: &[&str],
        module: Arc<Vec<u8>>,
        sha256: Option<String>,
    ) -> Result<(), sandtab_wasi::GuestError> {
        self.install_program_from(names, ProgramSource::ready(module), sha256);
        self.precompile(names.first().copied().unwrap_or_default())
    }

    /// Installs a program whose module `source` gives later (see [`ProgramSource`]):
    /// its names are commands in every session at once, and a command that runs it
    /// waits for the module.
    pub fn install_program_from(
        &mut self,
        names: &[&str],
        source: Arc<ProgramSource>,
        sha256: Option<String>,
    ) {
        for shell in self.shells.values_mut() {
            shell.install_program_from(names, source.clone(), sha256.clone());
        }
        self.programs.push(Installed {
            names: names.iter().map(|name| (*name).to_owned()).collect(),
            source,
            sha256,
        });
    }

    /// Compiles the installed program `name` now, if its module is here (sessions share
    /// the compiled module).
    pub fn precompile(&self, name: &str) -> Result<(), sandtab_wasi::GuestError> {
        match self.shells.values().next() {
            Some(shell) => shell.precompile(name),
            None => Ok(()),
        }
    }

    /// Changes the guest limits of every session, and of the sessions made later.
    pub fn set_guest_limits(&mut self, guest: GuestLimits) -> Result<(), ShellError> {
        for shell in self.shells.values_mut() {
            shell.set_guest_limits(guest)?;
        }
        self.limits.guest = guest;
        Ok(())
    }

    fn new_shell(&self) -> Result<Shell, ShellError> {
        let mut shell = Shell::with_gate(
            self.fs.clone(),
            self.limits.clone(),
            self.engine.clone(),
            self.host.clone(),
            self.gate.clone(),
        )?;
        for program in &self.programs {
            let names: Vec<&str> = program.names.iter().map(String::as_str).collect();
            shell.install_program_from(&names, program.source.clone(), program.sha256.clone());
        }
        if let Some(tape) = &self.tape {
            shell.set_tape(tape.clone());
        }
        Ok(shell)
    }
}

fn check_name(name: &str) -> Result<(), ShellError> {
    let good = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if good {
        Ok(())
    } else {
        Err(ShellError::InvalidSessionName(name.to_owned()))
    }
}
