//! Constraints on a tool's arguments: comparisons, `in`/`not_in`, `starts_with`/
//! `ends_with`, a regex (whole value, size-limited), `max_length`, combined with
//! `all`/`any`/`not`. They fail closed: an argument that is missing or of the wrong type
//! for its test denies the call, whatever the combinator around it.
//!
//! In the document a constraint is `{"arg": "/path", "<test>": value}` (the argument by
//! JSON Pointer, or a plain top-level name), or `{"all": [...]}`, `{"any": [...]}`,
//! `{"not": {...}}`.

use crate::error::CapsError;
use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};

/// The longest regex pattern a document may give.
pub const MAX_PATTERN_LEN: usize = 1024;
/// The most memory one compiled constraint regex may take (bytes).
pub const REGEX_SIZE_LIMIT: usize = 256 * 1024;
/// How deeply constraints may nest.
pub const MAX_DEPTH: usize = 16;

/// A checked, compiled constraint.
#[derive(Debug, Clone)]
pub enum Constraint {
    /// Every one holds (an empty list holds).
    All(Vec<Constraint>),
    /// At least one holds (an empty list does not).
    Any(Vec<Constraint>),
    /// The inner one does not hold (but an argument it cannot evaluate still denies).
    Not(Box<Constraint>),
    /// A test on one argument.
    Test {
        /// The argument, as a JSON Pointer (`/path`, `/options/depth`).
        pointer: String,
        /// What must hold of it.
        test: Test,
    },
}

/// A test on one argument's value.
#[derive(Debug, Clone)]
pub enum Test {
    /// Equal (JSON equality; numbers by value).
    Eq(Value),
    /// Not equal.
    Ne(Value),
    /// Less than (numbers).
    Lt(f64),
    /// At most (numbers).
    Le(f64),
    /// More than (numbers).
    Gt(f64),
    /// At least (numbers).
    Ge(f64),
    /// One of these values.
    In(Vec<Value>),
    /// None of these values.
    NotIn(Vec<Value>),
    /// A string that starts with this.
    StartsWith(String),
    /// A string that ends with this.
    EndsWith(String),
    /// A string the regex matches as a whole.
    Regex(Regex),
    /// A string of at most this many characters, or an array of at most this many items.
    MaxLength(usize),
}

const TESTS: &[&str] = &[
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "in",
    "not_in",
    "starts_with",
    "ends_with",
    "regex",
    "max_length",
];

impl Constraint {
    /// Checks and compiles the constraint `value` found at `place` in the document.
    pub fn compile(value: &Value, place: &str) -> Result<Self, CapsError> {
        compile(value, place, 0)
    }

    /// Whether the arguments satisfy the constraint: `Ok(())`, or the reason they do not.
    pub fn check(&self, args: &Value) -> Result<(), String> {
        match self.eval(args)? {
            true => Ok(()),
            false => Err(self.describe()),
        }
    }

    /// `Ok(holds)`, or `Err` when it cannot be evaluated (which denies).
    fn eval(&self, args: &Value) -> Result<bool, String> {
        match self {
            Constraint::All(items) => {
                for item in items {
                    if !item.eval(args)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Constraint::Any(items) => {
                // Every branch is evaluated, so that an argument one branch cannot
                // evaluate denies even when another branch holds.
                let mut holds = false;
                for item in items {
                    holds |= item.eval(args)?;
                }
                Ok(holds)
            }
            Constraint::Not(inner) => Ok(!inner.eval(args)?),
            Constraint::Test { pointer, test } => {
                let value = args
                    .pointer(pointer)
                    .ok_or_else(|| format!("argument `{}` is missing", shown(pointer)))?;
                test.eval(value)
                    .map_err(|why| format!("argument `{}` {why}", shown(pointer)))
            }
        }
    }

    /// The constraint as a person would read it, for a denial's message.
    pub fn describe(&self) -> String {
        match self {
            Constraint::All(items) => join(items, " and "),
            Constraint::Any(items) if items.is_empty() => "nothing (an empty `any`)".into(),
            Constraint::Any(items) => join(items, " or "),
            Constraint::Not(inner) => format!("not ({})", inner.describe()),
            Constraint::Test { pointer, test } => {
                format!("`{}` {}", shown(pointer), test.describe())
            }
        }
    }
}

fn join(items: &[Constraint], separator: &str) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|item| match item {
            Constraint::Test { .. } | Constraint::Not(_) => item.describe(),
            _ => format!("({})", item.describe()),
        })
        .collect();
    parts.join(separator)
}

/// A pointer as the document most likely wrote it (`path` for `/path`).
fn shown(pointer: &str) -> &str {
    match pointer.strip_prefix('/') {
        Some(rest) if !rest.contains('/') && !rest.contains('~') => rest,
        _ => pointer,
    }
}

impl Test {
    fn eval(&self, value: &Value) -> Result<bool, String> {
        Ok(match self {
            Test::Eq(expected) => json_eq(value, expected),
            Test::Ne(expected) => !json_eq(value, expected),
            Test::Lt(bound) => number(value)? < *bound,
            Test::Le(bound) => number(value)? <= *bound,
            Test::Gt(bound) => number(value)? > *bound,
            Test::Ge(bound) => number(value)? >= *bound,
            Test::In(values) => values.iter().any(|v| json_eq(value, v)),
            Test::NotIn(values) => !values.iter().any(|v| json_eq(value, v)),
            Test::StartsWith(prefix) => string(value)?.starts_with(prefix.as_str()),
            Test::EndsWith(suffix) => string(value)?.ends_with(suffix.as_str()),
            Test::Regex(regex) => regex.is_match(string(value)?),
            Test::MaxLength(max) => match value {
                Value::String(text) => text.chars().count() <= *max,
                Value::Array(items) => items.len() <= *max,
                _ => return Err(format!("is {}, not a string or an array", kind(value))),
            },
        })
    }

    fn describe(&self) -> String {
        match self {
            Test::Eq(v) => format!("must equal {v}"),
            Test::Ne(v) => format!("must not equal {v}"),
            Test::Lt(n) => format!("must be less than {n}"),
            Test::Le(n) => format!("must be at most {n}"),
            Test::Gt(n) => format!("must be more than {n}"),
            Test::Ge(n) => format!("must be at least {n}"),
            Test::In(values) => format!("must be one of {}", Value::Array(values.clone())),
            Test::NotIn(values) => {
                format!("must not be one of {}", Value::Array(values.clone()))
            }
            Test::StartsWith(p) => format!("must start with {}", Value::String(p.clone())),
            Test::EndsWith(s) => format!("must end with {}", Value::String(s.clone())),
            Test::Regex(r) => {
                let pattern = r.as_str();
                let inner = &pattern[4..pattern.len() - 2]; // `^(?:` ... `)$`
                format!("must match the regex {}", Value::String(inner.into()))
            }
            Test::MaxLength(n) => format!("must be at most {n} long"),
        }
    }
}

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

fn number(value: &Value) -> Result<f64, String> {
    value
        .as_f64()
        .filter(|_| value.is_number())
        .ok_or_else(|| format!("is {}, not a number", kind(value)))
}

fn string(value: &Value) -> Result<&str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("is {}, not a string", kind(value)))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn compile(value: &Value, place: &str, depth: usize) -> Result<Constraint, CapsError> {
    if depth > MAX_DEPTH {
        return Err(CapsError::invalid(
            place,
            format!("constraints nest more than {MAX_DEPTH} deep"),
        ));
    }
    let Value::Object(object) = value else {
        return Err(CapsError::invalid(place, "a constraint must be an object"));
    };
    let list = |key: &str| -> Result<Vec<Constraint>, CapsError> {
        let Some(Value::Array(items)) = object.get(key) else {
            return Err(CapsError::invalid(
                format!("{place}.{key}"),
                "must be an array of constraints",
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| compile(item, &format!("{place}.{key}[{i}]"), depth + 1))
            .collect()
    };
    for combinator in ["all", "any", "not"] {
        if object.contains_key(combinator) {
            if object.len() != 1 {
                return Err(CapsError::invalid(
                    place,
                    format!("`{combinator}` must be the constraint's only key"),
                ));
            }
            return Ok(match combinator {
                "all" => Constraint::All(list("all")?),
                "any" => Constraint::Any(list("any")?),
                _ => Constraint::Not(Box::new(compile(
                    &object["not"],
                    &format!("{place}.not"),
                    depth + 1,
                )?)),
            });
        }
    }
    compile_test(object, place)
}

fn compile_test(object: &Map<String, Value>, place: &str) -> Result<Constraint, CapsError> {
    let pointer = match object.get("arg") {
        Some(Value::String(arg)) if arg.starts_with('/') => arg.clone(),
        Some(Value::String(arg)) if !arg.is_empty() => {
            format!("/{}", arg.replace('~', "~0").replace('/', "~1"))
        }
        Some(Value::String(_)) => return Err(CapsError::invalid(place, "`arg` is empty")),
        Some(_) => {
            return Err(CapsError::invalid(
                format!("{place}.arg"),
                "must be a string (an argument name or a JSON Pointer)",
            ));
        }
        None => {
            return Err(CapsError::invalid(
                place,
                "a constraint needs `arg` and one test, or `all`, `any` or `not`",
            ));
        }
    };
    let mut tests = object.iter().filter(|(key, _)| key.as_str() != "arg");
    let (Some((key, operand)), None) = (tests.next(), tests.next()) else {
        return Err(CapsError::invalid(
            place,
            format!(
                "a constraint needs exactly one test, one of: {}",
                TESTS.join(", ")
            ),
        ));
    };
    let at = format!("{place}.{key}");
    let num = || {
        operand
            .as_f64()
            .filter(|_| operand.is_number())
            .ok_or_else(|| CapsError::invalid(&at, "must be a number"))
    };
    let text = || {
        operand
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| CapsError::invalid(&at, "must be a string"))
    };
    let values = || match operand {
        Value::Array(items) => Ok(items.clone()),
        _ => Err(CapsError::invalid(&at, "must be an array of values")),
    };
    let test = match key.as_str() {
        "eq" => Test::Eq(operand.clone()),
        "ne" => Test::Ne(operand.clone()),
        "lt" => Test::Lt(num()?),
        "le" => Test::Le(num()?),
        "gt" => Test::Gt(num()?),
        "ge" => Test::Ge(num()?),
        "in" => Test::In(values()?),
        "not_in" => Test::NotIn(values()?),
        "starts_with" => Test::StartsWith(text()?),
        "ends_with" => Test::EndsWith(text()?),
        "max_length" => Test::MaxLength(
            operand
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CapsError::invalid(&at, "must be a whole number"))?,
        ),
        "regex" => {
            let pattern = text()?;
            if pattern.len() > MAX_PATTERN_LEN {
                return Err(CapsError::invalid(
                    &at,
                    format!("the pattern is longer than {MAX_PATTERN_LEN} bytes"),
                ));
            }
            let regex = RegexBuilder::new(&format!("^(?:{pattern})$"))
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|err| CapsError::invalid(&at, format!("bad regex: {err}")))?;
            Test::Regex(regex)
        }
        other => {
            return Err(CapsError::invalid(
                place,
                format!("unknown test `{other}` (one of: {})", TESTS.join(", ")),
            ));
        }
    };
    Ok(Constraint::Test { pointer, test })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn constraint(doc: Value) -> Constraint {
        Constraint::compile(&doc, "c").unwrap()
    }

    #[test]
    fn comparisons_and_membership() {
        let c = constraint(json!({"all": [
            {"arg": "days", "le": 7},
            {"arg": "days", "gt": 0},
            {"arg": "city", "in": ["Paris", "Oslo"]},
            {"arg": "/unit", "not_in": ["kelvin"]},
        ]}));
        assert!(
            c.check(&json!({"days": 7, "city": "Oslo", "unit": "C"}))
                .is_ok()
        );
        assert!(
            c.check(&json!({"days": 8, "city": "Oslo", "unit": "C"}))
                .is_err()
        );
        assert!(
            c.check(&json!({"days": 0, "city": "Oslo", "unit": "C"}))
                .is_err()
        );
        assert!(
            c.check(&json!({"days": 1, "city": "Rome", "unit": "C"}))
                .is_err()
        );
        let err = c.check(&json!({"days": 1, "city": "Oslo", "unit": "kelvin"}));
        assert_eq!(
            err.unwrap_err(),
            "`days` must be at most 7 and `days` must be more than 0 and `city` must be one of [\"Paris\",\"Oslo\"] and `unit` must not be one of [\"kelvin\"]"
        );
    }

    #[test]
    fn strings_regex_and_length() {
        let c = constraint(json!({"any": [
            {"arg": "path", "starts_with": "/work/"},
            {"arg": "path", "ends_with": ".md"},
        ]}));
        assert!(c.check(&json!({"path": "/work/a"})).is_ok());
        assert!(c.check(&json!({"path": "/etc/readme.md"})).is_ok());
        assert!(c.check(&json!({"path": "/etc/passwd"})).is_err());
        let r = constraint(json!({"arg": "id", "regex": "[a-z]{3}"}));
        assert!(r.check(&json!({"id": "abc"})).is_ok());
        // The regex matches the whole value, not a part of it.
        assert!(r.check(&json!({"id": "abcd"})).is_err());
        assert!(r.check(&json!({"id": "xabc"})).is_err());
        let m = constraint(json!({"arg": "q", "max_length": 3}));
        assert!(m.check(&json!({"q": "été"})).is_ok());
        assert!(m.check(&json!({"q": "abcd"})).is_err());
        assert!(m.check(&json!({"q": [1, 2, 3]})).is_ok());
        assert!(m.check(&json!({"q": [1, 2, 3, 4]})).is_err());
    }

    #[test]
    fn fails_closed_on_missing_or_mistyped_arguments() {
        let n = constraint(json!({"not": {"arg": "n", "eq": 1}}));
        assert!(n.check(&json!({"n": 2})).is_ok());
        assert!(n.check(&json!({"n": 1})).is_err());
        // `not` of a test that cannot be evaluated still denies.
        assert_eq!(n.check(&json!({})).unwrap_err(), "argument `n` is missing");
        let lt = constraint(json!({"any": [{"arg": "n", "lt": 5}, {"arg": "m", "eq": 1}]}));
        assert_eq!(
            lt.check(&json!({"n": "3", "m": 1})).unwrap_err(),
            "argument `n` is a string, not a number"
        );
        assert!(constraint(json!({"any": []})).check(&json!({})).is_err());
        assert!(constraint(json!({"all": []})).check(&json!({})).is_ok());
    }

    #[test]
    fn nested_pointers_and_numbers_by_value() {
        let c = constraint(json!({"arg": "/options/depth", "eq": 2}));
        assert!(c.check(&json!({"options": {"depth": 2.0}})).is_ok());
        assert!(c.check(&json!({"options": {"depth": 3}})).is_err());
    }

    #[test]
    fn bad_constraints_are_clear_errors() {
        let err = |doc: Value| {
            Constraint::compile(&doc, "tools[0].constraints")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(json!({"arg": "x"})),
            "capability document: tools[0].constraints: a constraint needs exactly one test, one of: eq, ne, lt, le, gt, ge, in, not_in, starts_with, ends_with, regex, max_length"
        );
        assert_eq!(
            err(json!({"arg": "x", "like": 1})),
            "capability document: tools[0].constraints: unknown test `like` (one of: eq, ne, lt, le, gt, ge, in, not_in, starts_with, ends_with, regex, max_length)"
        );
        assert_eq!(
            err(json!({"arg": "x", "lt": "3"})),
            "capability document: tools[0].constraints.lt: must be a number"
        );
        assert_eq!(
            err(json!({"all": [{"arg": "x", "regex": "("}]}))
                .lines()
                .next()
                .unwrap(),
            "capability document: tools[0].constraints.all[0].regex: bad regex: regex parse error:"
        );
        assert!(err(json!({"arg": "x", "regex": "a".repeat(2000)})).contains("longer than 1024"));
        // A pattern whose compiled form is too large is refused, not built.
        assert!(err(json!({"arg": "x", "regex": "(\\w{100}){100}"})).contains("bad regex"));
        assert!(err(json!({"all": {"arg": "x"}})).contains("must be an array"));
        assert!(err(json!({"all": [], "any": []})).contains("only key"));
        let mut deep = json!({"arg": "x", "eq": 1});
        for _ in 0..20 {
            deep = json!({"not": deep});
        }
        assert!(err(deep).contains("nest more than 16"));
        assert!(err(json!([1])).contains("must be an object"));
    }
}
