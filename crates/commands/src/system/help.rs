//! `help`: the shell's builtins, described as bash's `help` does (`help`, `help NAME`,
//! `-d` for a one-line description, `-s` for the synopsis). Other commands describe
//! themselves with `--help`.

use crate::util::Output;
use crate::{Context, Registry, Status};

pub(crate) fn register(builder: Registry) -> Registry {
    builder.command("help", Help)
}

struct Help;

/// A builtin: its name, synopsis and what it does.
struct Topic {
    name: &'static str,
    synopsis: &'static str,
    summary: &'static str,
}

const fn topic(name: &'static str, synopsis: &'static str, summary: &'static str) -> Topic {
    Topic {
        name,
        synopsis,
        summary,
    }
}

const TOPICS: &[Topic] = &[
    topic(":", ":", "Null command: does nothing and succeeds."),
    topic(
        ".",
        ". filename [arguments]",
        "Execute commands from a file in the current shell.",
    ),
    topic(
        "[",
        "[ arg... ]",
        "Evaluate a conditional expression (the same as `test`).",
    ),
    topic(
        "alias",
        "alias [-p] [name[=value] ... ]",
        "Define or display aliases.",
    ),
    topic("break", "break [n]", "Exit for, while, or until loops."),
    topic(
        "builtin",
        "builtin [shell-builtin [arg ...]]",
        "Execute shell builtins.",
    ),
    topic(
        "caller",
        "caller [expr]",
        "Return the context of the current subroutine call.",
    ),
    topic(
        "cd",
        "cd [-L|-P] [dir]",
        "Change the shell working directory.",
    ),
    topic(
        "command",
        "command [-pVv] command [arg ...]",
        "Execute a simple command or display information about commands.",
    ),
    topic(
        "continue",
        "continue [n]",
        "Resume the next iteration of a for, while, or until loop.",
    ),
    topic(
        "declare",
        "declare [-aAfFgilnrtux] [name[=value] ...]",
        "Set variable values and attributes.",
    ),
    topic(
        "dirs",
        "dirs [-clpv] [+N] [-N]",
        "Display the directory stack.",
    ),
    topic(
        "echo",
        "echo [-neE] [arg ...]",
        "Write arguments to the standard output.",
    ),
    topic(
        "eval",
        "eval [arg ...]",
        "Execute arguments as a shell command.",
    ),
    topic(
        "exec",
        "exec [command [argument ...]] [redirection ...]",
        "Replace the shell with the given command, or apply redirections to the shell.",
    ),
    topic("exit", "exit [n]", "Exit the shell with status n."),
    topic(
        "export",
        "export [-fn] [name[=value] ...]",
        "Set the export attribute for shell variables.",
    ),
    topic("false", "false", "Return an unsuccessful result."),
    topic(
        "getopts",
        "getopts optstring name [arg ...]",
        "Parse option arguments.",
    ),
    topic(
        "hash",
        "hash [-lr] [-p pathname] [-dt] [name ...]",
        "Remember or display program locations.",
    ),
    topic(
        "help",
        "help [-ds] [pattern ...]",
        "Display information about builtin commands.",
    ),
    topic("history", "history [-c] [n]", "Display the history list."),
    topic(
        "let",
        "let arg [arg ...]",
        "Evaluate arithmetic expressions.",
    ),
    topic(
        "local",
        "local [option] name[=value] ...",
        "Define local variables in a function.",
    ),
    topic(
        "mapfile",
        "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [array]",
        "Read lines from the standard input into an array variable (also `readarray`).",
    ),
    topic(
        "popd",
        "popd [-n] [+N | -N]",
        "Remove directories from the directory stack.",
    ),
    topic(
        "printf",
        "printf [-v var] format [arguments]",
        "Format and print arguments under the control of the format.",
    ),
    topic(
        "pushd",
        "pushd [-n] [+N | -N | dir]",
        "Add a directory to the directory stack and change to it.",
    ),
    topic(
        "pwd",
        "pwd [-LP]",
        "Print the name of the current working directory.",
    ),
    topic(
        "read",
        "read [-ers] [-a array] [-d delim] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [name ...]",
        "Read a line from the standard input and split it into fields.",
    ),
    topic(
        "readonly",
        "readonly [-aAf] [name[=value] ...]",
        "Mark shell variables as unchangeable.",
    ),
    topic("return", "return [n]", "Return from a shell function."),
    topic(
        "set",
        "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [arg ...]",
        "Set or unset values of shell options and positional parameters.",
    ),
    topic("shift", "shift [n]", "Shift positional parameters."),
    topic(
        "shopt",
        "shopt [-pqsu] [-o] [optname ...]",
        "Set and unset shell options.",
    ),
    topic(
        "source",
        "source filename [arguments]",
        "Execute commands from a file in the current shell.",
    ),
    topic("test", "test [expr]", "Evaluate a conditional expression."),
    topic(
        "trap",
        "trap [-lp] [[arg] signal_spec ...]",
        "Run commands when the shell receives signals or exits.",
    ),
    topic("true", "true", "Return a successful result."),
    topic(
        "type",
        "type [-afptP] name [name ...]",
        "Display information about command type.",
    ),
    topic(
        "typeset",
        "typeset [-aAfFgilnrtux] name[=value] ...",
        "Set variable values and attributes (the same as `declare`).",
    ),
    topic(
        "unalias",
        "unalias [-a] name [name ...]",
        "Remove each name from the list of defined aliases.",
    ),
    topic(
        "unset",
        "unset [-f] [-v] [-n] [name ...]",
        "Unset values and attributes of shell variables and functions.",
    ),
    topic(
        "wait",
        "wait [-n] [id ...]",
        "Wait for job completion and return exit status.",
    ),
    topic(
        "for",
        "for NAME [in WORDS ... ] ; do COMMANDS; done",
        "Execute commands for each member in a list.",
    ),
    topic(
        "while",
        "while COMMANDS; do COMMANDS; done",
        "Execute commands as long as a test succeeds.",
    ),
    topic(
        "until",
        "until COMMANDS; do COMMANDS; done",
        "Execute commands as long as a test does not succeed.",
    ),
    topic(
        "if",
        "if COMMANDS; then COMMANDS; [ elif COMMANDS; then COMMANDS; ]... [ else COMMANDS; ] fi",
        "Execute commands based on a conditional.",
    ),
    topic(
        "case",
        "case WORD in [PATTERN [| PATTERN]...) COMMANDS ;;]... esac",
        "Execute commands based on pattern matching.",
    ),
    topic(
        "function",
        "function name { COMMANDS ; } or name () { COMMANDS ; }",
        "Define a shell function.",
    ),
    topic(
        "[[",
        "[[ expression ]]",
        "Evaluate a conditional expression, with pattern matching.",
    ),
    topic(
        "((",
        "(( expression ))",
        "Evaluate an arithmetic expression.",
    ),
];

const HEADER: &str = "\
sandtab shell: a bash-compatible shell running in this sandbox.
These shell commands are defined internally. Type `help' to see this list.
Type `help name' to find out more about the command `name'.
Other commands (ls, grep, sed, jq, python3, ...) describe themselves with `name --help'.
Programs are the files on PATH; `type name' tells which a name runs.

";

#[derive(Clone, Copy, PartialEq)]
enum Form {
    Full,
    Description,
    Synopsis,
}

fn describe(topic: &Topic, form: Form) -> String {
    match form {
        Form::Full => format!(
            "{}: {}\n    {}\n",
            topic.name, topic.synopsis, topic.summary
        ),
        Form::Description => format!("{} - {}\n", topic.name, topic.summary),
        Form::Synopsis => format!("{}: {}\n", topic.name, topic.synopsis),
    }
}

/// Topics whose name begins with `pattern`, as bash's `help` matches.
fn matching(pattern: &str) -> Vec<&'static Topic> {
    TOPICS
        .iter()
        .filter(|topic| topic.name.starts_with(pattern))
        .collect()
}

#[async_trait::async_trait]
impl crate::Command for Help {
    async fn execute(&self, ctx: Context<'_>) -> crate::Result<Status> {
        let mut out = Output::new(&ctx);
        let mut form = Form::Full;
        let mut patterns = Vec::new();
        let mut options_done = false;
        for arg in ctx.args {
            match arg.as_str() {
                "--" if !options_done => options_done = true,
                "-d" if !options_done => form = Form::Description,
                "-s" if !options_done => form = Form::Synopsis,
                "-m" if !options_done => form = Form::Full,
                option if !options_done && option.starts_with('-') && option.len() > 1 => {
                    out.err(format!(
                        "help: {option}: invalid option\nhelp: usage: help [-dms] [pattern ...]\n"
                    ))
                    .await?;
                    return out.finish(2).await;
                }
                pattern => {
                    options_done = true;
                    patterns.push(pattern);
                }
            }
        }
        if patterns.is_empty() {
            let mut text = String::from(HEADER);
            for topic in TOPICS {
                text.push_str(&format!(" {}\n", topic.synopsis));
            }
            out.out(text).await?;
            return out.finish(0).await;
        }
        let mut text = String::new();
        let mut status = 0;
        for pattern in patterns {
            let found = matching(pattern);
            if found.is_empty() {
                out.err(format!(
                    "help: no help topics match `{pattern}'.  Try `{pattern} --help' or `type {pattern}'.\n"
                ))
                .await?;
                status = 1;
            }
            for topic in found {
                text.push_str(&describe(topic, form));
            }
        }
        out.out(text).await?;
        out.finish(status).await
    }
}
