//! A tool's argument schema, compiled once when the document is read and checked on
//! every call. JSON Schema (draft 2020-12 unless `$schema` names another) by `boon`,
//! whose patterns run on the linear-time `regex` engine, so a schema from a page or an
//! MCP server cannot make a check run away. Nothing is loaded from outside the schema:
//! a `$ref` to a file or a URL is refused when the schema is compiled.

use serde_json::Value;

/// Where a tool's schema is compiled from; `$ref`s are relative to it.
const SCHEMA_URL: &str = "urn:sandtab:tool";

/// How deeply a schema may nest (as the page's options may).
const MAX_SCHEMA_DEPTH: usize = 64;

/// The check recurses once per level of schema it walks, and a schema that refers to
/// itself is walked again for each level of the arguments: (references + 1) x depth x
/// (argument depth + 1) bounds it. Measured on a schema of 121 references and 3 levels,
/// the browsers' stacks held at 2,196 and gave out at 3,294 (Chromium: "Maximum call
/// stack size exceeded"; Firefox at 4,758: the runtime crashed), so arguments nested
/// deeper than a budget well below that allows are refused unchecked.
const CHECK_BUDGET: usize = 600;

/// A compiled argument schema.
pub(crate) struct ArgumentSchema {
    schemas: boon::Schemas,
    root: boon::SchemaIndex,
    /// How deeply arguments may nest to be checked, for a schema with references.
    max_args_depth: Option<usize>,
}

impl ArgumentSchema {
    /// `schema` compiled, or why it is not a usable JSON Schema.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let depth = depth_of(schema);
        if depth > MAX_SCHEMA_DEPTH {
            return Err(format!(
                "it nests {depth} levels deep, more than {MAX_SCHEMA_DEPTH}"
            ));
        }
        let references = references_in(schema);
        let max_args_depth = (references > 0)
            .then(|| (CHECK_BUDGET / ((references + 1) * depth.max(1))).saturating_sub(1));
        let mut compiler = boon::Compiler::new();
        compiler.use_loader(Box::new(Offline));
        compiler
            .add_resource(SCHEMA_URL, schema.clone())
            .map_err(|err| err.to_string())?;
        let mut schemas = boon::Schemas::new();
        let root = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .map_err(|err| compile_error(&err))?;
        Ok(Self {
            schemas,
            root,
            max_args_depth,
        })
    }

    /// What is wrong with `value`, at most `limit` problems, each with where it is
    /// (`/city: ...`); empty when it matches.
    pub(crate) fn problems(&self, value: &Value, limit: usize) -> Vec<String> {
        if let Some(max) = self.max_args_depth {
            let depth = depth_of(value);
            if depth > max {
                return vec![format!(
                    "they nest {depth} levels deep; this schema refers to itself, and arguments \
                     nested more than {max} levels are not checked against it"
                )];
            }
        }
        let Err(err) = self.schemas.validate(value, self.root) else {
            return Vec::new();
        };
        let mut problems = Vec::new();
        collect_leaves(&err, limit, &mut problems);
        problems
    }
}

/// Levels of arrays and objects in `value` (a number or string is 0).
fn depth_of(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

/// How many references (`$ref`, `$dynamicRef`, `$recursiveRef`) `schema` holds.
fn references_in(schema: &Value) -> usize {
    match schema {
        Value::Array(items) => items.iter().map(references_in).sum(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, value)| {
                let own = matches!(key.as_str(), "$ref" | "$dynamicRef" | "$recursiveRef")
                    && value.is_string();
                usize::from(own) + references_in(value)
            })
            .sum(),
        _ => 0,
    }
}

/// The errors at the leaves of boon's tree: the inner nodes only say which keyword
/// (`properties`, `allOf`) led there.
fn collect_leaves(err: &boon::ValidationError<'_, '_>, limit: usize, out: &mut Vec<String>) {
    if out.len() >= limit {
        return;
    }
    if err.causes.is_empty() {
        let at = err.instance_location.to_string();
        out.push(match at.is_empty() {
            true => err.kind.to_string(),
            false => format!("{at}: {}", err.kind),
        });
        return;
    }
    for cause in &err.causes {
        collect_leaves(cause, limit, out);
    }
}

/// A compile error in one line: boon's error against the metaschema is a tree.
fn compile_error(err: &boon::CompileError) -> String {
    match err {
        boon::CompileError::ValidationError { src, .. } => {
            let mut problems = Vec::new();
            collect_leaves(src, 3, &mut problems);
            let problems: Vec<String> = problems.iter().map(|p| one_line(p)).collect();
            format!(
                "it does not follow the metaschema ({})",
                problems.join("; ")
            )
        }
        boon::CompileError::LoadUrlError { url, .. }
        | boon::CompileError::ParseUrlError { url, .. }
        | boon::CompileError::UnsupportedUrlScheme { url } => {
            format!("it refers to {url}, and only references inside the schema are followed")
        }
        other => other.to_string(),
    }
}

/// `text` on one line: a regex error draws carets under the pattern on lines of their own.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.chars().all(|c| c == '^'))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Loads nothing: the schemas a gate checks with are whole in the document.
struct Offline;

impl boon::UrlLoader for Offline {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is outside the schema").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(schema: Value, value: Value) -> Vec<String> {
        ArgumentSchema::compile(&schema)
            .unwrap()
            .problems(&value, 5)
    }

    #[test]
    fn names_each_problem_where_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
            "required": ["city"],
        });
        assert!(problems(schema.clone(), json!({"city": "Oslo", "days": 3})).is_empty());
        assert_eq!(
            problems(schema.clone(), json!({"days": 9})),
            ["missing properties 'city'", "/days: must be <=7, but got 9"]
        );
        assert_eq!(
            problems(schema, json!({"city": 3})),
            ["/city: want string, but got number"]
        );
    }

    #[test]
    fn stops_at_the_limit() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let many = ArgumentSchema::compile(&schema)
            .unwrap()
            .problems(&json!([1, 2, 3, 4, 5, 6, 7]), 2);
        assert_eq!(
            many,
            [
                "/0: want string, but got number",
                "/1: want string, but got number"
            ]
        );
    }

    #[test]
    fn follows_references_inside_the_schema() {
        let schema = json!({
            "type": "object",
            "$defs": {"path": {"type": "string", "pattern": "^/"}},
            "properties": {"from": {"$ref": "#/$defs/path"}},
        });
        assert!(problems(schema.clone(), json!({"from": "/a"})).is_empty());
        assert_eq!(
            problems(schema, json!({"from": "a"})),
            ["/from: 'a' does not match pattern '^/'"]
        );
    }

    #[test]
    fn refuses_references_outside_the_schema() {
        // A natively run gate must not read the host's files, nor fetch, for a schema.
        for target in [
            "file:///etc/passwd",
            "https://example.com/s.json",
            "/etc/passwd",
        ] {
            let schema = json!({"type": "object", "properties": {"a": {"$ref": target}}});
            let err = ArgumentSchema::compile(&schema).err().unwrap_or_default();
            assert!(
                err.contains("only references inside the schema are followed"),
                "{target}: {err}"
            );
        }
    }

    #[test]
    fn refuses_what_breaks_the_metaschema() {
        let err = ArgumentSchema::compile(&json!({"type": "object", "minProperties": -1}))
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with("it does not follow the metaschema ("),
            "{err}"
        );
        assert!(err.contains("minProperties"), "{err}");
    }

    #[test]
    fn refuses_a_pattern_the_linear_engine_cannot_run() {
        for pattern in ["^(?=a)b", "(a)\\1"] {
            let schema = json!({"type": "object", "properties": {"a": {"pattern": pattern}}});
            let err = ArgumentSchema::compile(&schema).err().unwrap_or_default();
            assert!(err.contains("is not valid regex"), "{pattern}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    /// A schema whose `x` is the schema again, behind a chain of `references` `$defs`.
    fn self_referring(references: usize) -> Value {
        let defs: serde_json::Map<String, Value> = (0..references)
            .map(|i| {
                let next = if i + 1 < references {
                    format!("#/$defs/a{}", i + 1)
                } else {
                    "#".into()
                };
                (format!("a{i}"), json!({"$ref": next}))
            })
            .collect();
        json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a0"}}})
    }

    /// Arguments `depth` + 1 levels deep (`{"x": {"x": {}}}` for 2).
    fn nested(depth: usize) -> Value {
        (0..depth).fold(json!({}), |inner, _| json!({"x": inner}))
    }

    /// `check` on a thread with a stack that holds a debug build's frames, several times
    /// a release build's: the bound itself is tested on the browsers' stacks
    /// (tests/e2e/security-tools.test.mjs).
    fn on_a_big_stack(check: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(check)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn a_schema_that_refers_to_itself_checks_arguments_to_a_bounded_depth() {
        on_a_big_stack(bounded_depth);
    }

    fn bounded_depth() {
        // 41 references (the property's and 40 `$defs`) and 3 levels:
        // 600 / ((41 + 1) * 3) = 4 steps, so 3 levels.
        let schema = ArgumentSchema::compile(&self_referring(40)).unwrap();
        assert_eq!(schema.max_args_depth, Some(3));
        assert!(schema.problems(&nested(2), 5).is_empty());
        let refused = schema.problems(&nested(20), 5);
        assert_eq!(
            refused,
            [
                "they nest 21 levels deep; this schema refers to itself, and arguments nested \
              more than 3 levels are not checked against it"
            ]
        );
        // Few references: deep trees are still checked.
        let tree = ArgumentSchema::compile(&self_referring(1)).unwrap();
        assert_eq!(tree.max_args_depth, Some(600 / ((2 + 1) * 3) - 1));
        assert!(tree.problems(&nested(30), 5).is_empty());
        assert_eq!(
            tree.problems(&json!({"x": {"x": 1}}), 5),
            ["/x/x: want object, but got number"]
        );
    }

    #[test]
    fn without_references_arguments_nest_freely() {
        let schema = ArgumentSchema::compile(&json!({"type": "object"})).unwrap();
        assert_eq!(schema.max_args_depth, None);
        assert!(schema.problems(&nested(127), 5).is_empty());
    }

    #[test]
    fn refuses_a_schema_nested_too_deeply() {
        let deep = (0..70).fold(json!({}), |inner, _| json!({"allOf": [inner]}));
        let err = ArgumentSchema::compile(&deep).err().unwrap_or_default();
        assert_eq!(err, "it nests 141 levels deep, more than 64");
    }

    #[test]
    fn a_costly_pattern_runs_in_linear_time() {
        // Catastrophic for a backtracking engine on this input; linear here.
        let schema = json!({"type": "string", "pattern": "^(a+)+$"});
        let input = format!("{}!", "a".repeat(40_000));
        assert_eq!(problems(schema, json!(input)).len(), 1);
    }
}
