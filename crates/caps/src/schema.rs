//! A tool's argument schema, compiled once when the document is read and checked on
//! every call. JSON Schema (draft 2020-12 unless `$schema` names another) by `boon`,
//! whose patterns run on the linear-time `regex` engine, so a schema from a page or an
//! MCP server cannot make a check run away. Nothing is loaded from outside the schema:
//! a `$ref` to a file or a URL is refused when the schema is compiled.

use serde_json::Value;

/// Where a tool's schema is compiled from; `$ref`s are relative to it.
const SCHEMA_URL: &str = "urn:sandtab:tool";

/// A compiled argument schema.
pub(crate) struct ArgumentSchema {
    schemas: boon::Schemas,
    root: boon::SchemaIndex,
}

impl ArgumentSchema {
    /// `schema` compiled, or why it is not a usable JSON Schema.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let mut compiler = boon::Compiler::new();
        compiler.use_loader(Box::new(Offline));
        compiler
            .add_resource(SCHEMA_URL, schema.clone())
            .map_err(|err| err.to_string())?;
        let mut schemas = boon::Schemas::new();
        let root = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .map_err(|err| compile_error(&err))?;
        Ok(Self { schemas, root })
    }

    /// What is wrong with `value`, at most `limit` problems, each with where it is
    /// (`/city: ...`); empty when it matches.
    pub(crate) fn problems(&self, value: &Value, limit: usize) -> Vec<String> {
        let Err(err) = self.schemas.validate(value, self.root) else {
            return Vec::new();
        };
        let mut problems = Vec::new();
        collect_leaves(&err, limit, &mut problems);
        problems
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

    #[test]
    fn a_costly_pattern_runs_in_linear_time() {
        // Catastrophic for a backtracking engine on this input; linear here.
        let schema = json!({"type": "string", "pattern": "^(a+)+$"});
        let input = format!("{}!", "a".repeat(40_000));
        assert_eq!(problems(schema, json!(input)).len(), 1);
    }
}
