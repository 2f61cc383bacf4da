//! GNU-style command-line parsing shared by `diff` and `patch`: combined short flags,
//! `--long`, `--long=value`, unambiguous abbreviations of long options, `--` and
//! operands anywhere (GNU permutes them).

/// Whether an option takes a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HasArg {
    No,
    Required,
    Optional,
}

/// What a command accepts.
pub struct Spec {
    /// Short options without a value.
    pub flags: &'static str,
    /// Short options that take a value (`-pN` or `-p N`).
    pub with_value: &'static str,
    pub long: &'static [(&'static str, HasArg)],
}

/// One parsed argument.
#[derive(Debug, PartialEq, Eq)]
pub enum Arg {
    Short(char, Option<String>),
    Long(&'static str, Option<String>),
    Operand(String),
}

/// The arguments in order, with the raw words each option came from.
pub fn parse(args: &[String], spec: &Spec) -> Result<Vec<(Arg, Vec<String>)>, String> {
    let mut parsed = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            parsed.extend(words.map(|w| (Arg::Operand(w.clone()), Vec::new())));
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_owned())),
                None => (long, None),
            };
            let (name, has_arg) = find_long(name, spec)?;
            let mut raw = vec![word.clone()];
            let value = match (has_arg, inline) {
                (HasArg::No, Some(_)) => {
                    return Err(format!("option '--{name}' doesn't allow an argument"));
                }
                (HasArg::Required, None) => match words.next() {
                    Some(value) => {
                        raw.push(value.clone());
                        Some(value.clone())
                    }
                    None => return Err(format!("option '--{name}' requires an argument")),
                },
                (_, inline) => inline,
            };
            parsed.push((Arg::Long(name, value), raw));
        } else if word.len() > 1 && word.starts_with('-') {
            parse_short_cluster(word, &mut words, spec, &mut parsed)?;
        } else {
            parsed.push((Arg::Operand(word.clone()), Vec::new()));
        }
    }
    Ok(parsed)
}

fn parse_short_cluster<'w>(
    word: &str,
    words: &mut impl Iterator<Item = &'w String>,
    spec: &Spec,
    parsed: &mut Vec<(Arg, Vec<String>)>,
) -> Result<(), String> {
    let mut raw = vec![word.to_owned()];
    let cluster = &word[1..];
    for (at, c) in cluster.char_indices() {
        if spec.with_value.contains(c) {
            let rest = &cluster[at + c.len_utf8()..];
            let value = if rest.is_empty() {
                let value = words
                    .next()
                    .ok_or_else(|| format!("option requires an argument -- '{c}'"))?;
                raw.push(value.clone());
                value.clone()
            } else {
                rest.to_owned()
            };
            parsed.push((Arg::Short(c, Some(value)), raw));
            return Ok(());
        }
        if !spec.flags.contains(c) {
            return Err(format!("invalid option -- '{c}'"));
        }
        // The raw words go with the first option of the cluster only.
        parsed.push((Arg::Short(c, None), std::mem::take(&mut raw)));
    }
    Ok(())
}

/// The long option `name` names: itself, or the only one it abbreviates.
fn find_long(name: &str, spec: &Spec) -> Result<(&'static str, HasArg), String> {
    if let Some(&(full, has_arg)) = spec.long.iter().find(|(full, _)| *full == name) {
        return Ok((full, has_arg));
    }
    let candidates: Vec<_> = spec
        .long
        .iter()
        .filter(|(full, _)| !name.is_empty() && full.starts_with(name))
        .collect();
    match candidates.as_slice() {
        [] => Err(format!("unrecognized option '--{name}'")),
        [(full, has_arg)] => Ok((full, *has_arg)),
        many => {
            let mut names: Vec<String> = many.iter().map(|(n, _)| format!("'--{n}'")).collect();
            names.sort();
            Err(format!(
                "option '--{name}' is ambiguous; possibilities: {}",
                names.join(" ")
            ))
        }
    }
}

/// A non-negative count as GNU tools read one, or `None` if it is not a number.
pub fn count(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Huge counts mean "everything": saturate instead of failing.
    Some(text.parse().unwrap_or(usize::MAX))
}
