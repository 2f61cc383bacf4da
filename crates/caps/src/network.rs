//! The network policy: which origins (with path prefixes and methods) a sandbox may
//! reach, and what a request there may carry. Default: nothing. A private, loopback or
//! link-local address is reachable only when its origin is granted by name (a wildcard
//! never grants one). Every redirect hop is checked like a first request.

use crate::error::{CapsError, Code, Denial};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// The default cap on one response body (10 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 10 * 1024 * 1024;
/// The default number of redirects followed.
pub const DEFAULT_MAX_REDIRECTS: u32 = 5;
/// The methods a grant allows when it names none.
pub const DEFAULT_METHODS: [&str; 2] = ["GET", "HEAD"];

/// The `network` section of a capability document.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NetworkDoc {
    #[serde(default)]
    allow: Vec<GrantDoc>,
    max_response_bytes: Option<u64>,
    max_redirects: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantDoc {
    origin: String,
    #[serde(default)]
    paths: Vec<String>,
    methods: Option<Vec<String>>,
    /// Header name -> value. The page may give `null` for a value it injects itself
    /// (so that the secret never enters the runtime).
    #[serde(default)]
    headers: BTreeMap<String, Option<String>>,
}

/// One granted origin.
#[derive(Debug, Clone)]
pub struct Grant {
    /// `https`, `http`.
    pub scheme: String,
    /// The host; for a wildcard grant (`https://*.example.com`), the suffix
    /// `example.com` (subdomains only).
    pub host: String,
    /// Whether the grant is a wildcard over subdomains.
    pub wildcard: bool,
    /// The port (the scheme's default when the origin names none).
    pub port: u16,
    /// Path prefixes; empty grants every path.
    pub paths: Vec<String>,
    /// Upper-case methods.
    pub methods: Vec<String>,
    /// Headers put on every request to this origin (lower-case names). A `None` value
    /// is injected by the host's doors, outside the runtime.
    pub headers: Vec<(String, Option<String>)>,
}

impl Grant {
    /// The origin as written in the policy (`https://*.example.com`, `http://127.0.0.1:8080`).
    pub fn origin(&self) -> String {
        let host = if self.wildcard {
            format!("*.{}", self.host)
        } else {
            self.host.clone()
        };
        match default_port(&self.scheme) == Some(self.port) {
            true => format!("{}://{host}", self.scheme),
            false => format!("{}://{host}:{}", self.scheme, self.port),
        }
    }

    /// Whether `url`'s origin is this grant's.
    fn matches_origin(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        let host_matches = match self.wildcard {
            // A wildcard names subdomains, never an address.
            true => {
                matches!(url.host(), Some(Host::Domain(_)))
                    && host.ends_with(&format!(".{}", self.host))
            }
            false => host == self.host,
        };
        host_matches
            && url.scheme() == self.scheme
            && url.port_or_known_default() == Some(self.port)
    }

    fn matches_path(&self, url: &Url) -> bool {
        self.paths.is_empty()
            || self
                .paths
                .iter()
                .any(|prefix| url.path().starts_with(prefix.as_str()))
    }
}

/// The compiled network policy.
#[derive(Debug, Clone)]
pub struct NetworkPolicy {
    /// The granted origins, in document order.
    pub grants: Vec<Grant>,
    /// The largest response body a request may receive.
    pub max_response_bytes: u64,
    /// How many redirects a request may follow.
    pub max_redirects: u32,
}

impl Default for NetworkPolicy {
    fn default() -> Self {
        Self {
            grants: Vec::new(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_redirects: DEFAULT_MAX_REDIRECTS,
        }
    }
}

/// A request the policy allows: the parsed URL and the grant that allows it.
#[derive(Debug, Clone)]
pub struct Allowed {
    /// The URL, normalised.
    pub url: Url,
    /// The index of the grant in [`NetworkPolicy::grants`].
    pub grant: usize,
}

impl NetworkPolicy {
    pub(crate) fn compile(doc: NetworkDoc) -> Result<Self, CapsError> {
        let mut grants = Vec::new();
        for (i, grant) in doc.allow.into_iter().enumerate() {
            grants.push(compile_grant(grant, &format!("network.allow[{i}]"))?);
        }
        if doc.max_redirects.is_some_and(|n| n > 20) {
            return Err(CapsError::invalid(
                "network.max_redirects",
                "must be at most 20",
            ));
        }
        Ok(Self {
            grants,
            max_response_bytes: doc.max_response_bytes.unwrap_or(DEFAULT_MAX_RESPONSE_BYTES),
            max_redirects: doc.max_redirects.unwrap_or(DEFAULT_MAX_REDIRECTS),
        })
    }

    /// Whether a `method` request to `url` is allowed, and by which grant.
    pub fn check(&self, method: &str, url: &str) -> Result<Allowed, Denial> {
        let parsed = Url::parse(url).map_err(|err| {
            Denial::new(
                Code::NetDenied,
                format!("`{url}` is not a valid URL ({err})"),
            )
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Denial::new(
                Code::NetScheme,
                format!(
                    "`{}:` URLs are not allowed: only http and https requests to granted origins",
                    parsed.scheme()
                ),
            ));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(Denial::new(
                Code::NetDenied,
                "URLs with a user name or password are not allowed",
            ));
        }
        let origin = parsed.origin().ascii_serialization();
        let at_origin: Vec<usize> = (0..self.grants.len())
            .filter(|&i| self.grants[i].matches_origin(&parsed))
            .collect();
        if at_origin.is_empty() {
            if is_private(&parsed) {
                return Err(Denial::new(
                    Code::NetPrivate,
                    format!("{origin} is a private or loopback address, and it is not granted"),
                ));
            }
            return Err(Denial::new(
                Code::NetDenied,
                format!("{origin} is not a granted origin"),
            ));
        }
        let on_path: Vec<usize> = at_origin
            .into_iter()
            .filter(|&i| self.grants[i].matches_path(&parsed))
            .collect();
        if on_path.is_empty() {
            return Err(Denial::new(
                Code::NetDenied,
                format!("the path {} is not granted at {origin}", parsed.path()),
            ));
        }
        let method = method.to_ascii_uppercase();
        let grant = on_path
            .iter()
            .copied()
            .find(|&i| self.grants[i].methods.contains(&method))
            .ok_or_else(|| {
                let methods = self.grants[on_path[0]].methods.join(", ");
                Denial::new(
                    Code::NetMethod,
                    format!(
                        "{method} is not granted at {origin}{} (granted: {methods})",
                        parsed.path()
                    ),
                )
            })?;
        Ok(Allowed { url: parsed, grant })
    }

    /// The origins a request may be redirected through, as the browser checks them at
    /// every hop (a Content Security Policy's `connect-src`). A request that carries
    /// injected headers may only stay at its own origin, so that they never travel.
    pub fn redirect_origins(&self, grant: usize) -> Vec<String> {
        match self.grants.get(grant) {
            Some(g) if !g.headers.is_empty() => vec![g.origin()],
            Some(_) => self
                .grants
                .iter()
                .filter(|g| g.headers.is_empty() || g.origin() == self.grants[grant].origin())
                .map(Grant::origin)
                .collect(),
            None => Vec::new(),
        }
    }
}

impl NetworkPolicy {
    /// The origins doors that cannot show a redirect's hops (a browser) may follow a
    /// `method` request allowed by grant `grant` through, or `None` if they must not
    /// follow it at all. Such doors check only each hop's origin, so every hop must be
    /// allowed whatever its path: the grant itself must allow every path and every
    /// method a redirect can turn the request into (its own, and `GET` for the ones
    /// fetch turns into `GET`: a `POST` after 301 or 302, anything but `HEAD` after
    /// 303); of the other origins a redirect may pass
    /// ([`NetworkPolicy::redirect_origins`]) only those with such a grant are kept.
    pub fn blind_redirect_origins(&self, grant: usize, method: &str) -> Option<Vec<String>> {
        let method = method.to_ascii_uppercase();
        let mut needed = vec![method.as_str()];
        if method != "GET" && method != "HEAD" {
            needed.push("GET");
        }
        let open = |g: &Grant| {
            g.paths.is_empty() && needed.iter().all(|m| g.methods.iter().any(|x| x == m))
        };
        let own = self.grants.get(grant)?;
        if !open(own) {
            return None;
        }
        let home = own.origin();
        let origins = self
            .redirect_origins(grant)
            .into_iter()
            .filter(|origin| {
                *origin == home || self.grants.iter().any(|g| g.origin() == *origin && open(g))
            })
            .collect();
        Some(origins)
    }

    /// Whether `url`'s origin is one of `origins` (as [`NetworkPolicy::redirect_origins`]
    /// lists them: the grants' origins, wildcards included).
    pub fn within(&self, origins: &[String], url: &Url) -> bool {
        self.grants
            .iter()
            .any(|g| g.matches_origin(url) && origins.contains(&g.origin()))
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

fn compile_grant(doc: GrantDoc, place: &str) -> Result<Grant, CapsError> {
    let at = |field: &str| format!("{place}.{field}");
    let origin = doc.origin.trim();
    let (wildcard, parse_from) = match origin.split_once("://*.") {
        Some((scheme, rest)) => (true, format!("{scheme}://{rest}")),
        None => (false, origin.to_owned()),
    };
    let url = Url::parse(&parse_from).map_err(|err| {
        CapsError::invalid(at("origin"), format!("`{origin}` is not an origin ({err})"))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(CapsError::invalid(
            at("origin"),
            "must be an http: or https: origin",
        ));
    }
    if url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
    {
        return Err(CapsError::invalid(
            at("origin"),
            format!("`{origin}` is not just an origin: give paths in `paths`"),
        ));
    }
    let host = url
        .host_str()
        .ok_or_else(|| CapsError::invalid(at("origin"), "has no host"))?
        .to_ascii_lowercase();
    if wildcard && !matches!(url.host(), Some(Host::Domain(_))) {
        return Err(CapsError::invalid(
            at("origin"),
            "a wildcard must be over a domain name",
        ));
    }
    let port = url
        .port_or_known_default()
        .ok_or_else(|| CapsError::invalid(at("origin"), "has no port"))?;
    for (i, path) in doc.paths.iter().enumerate() {
        if !path.starts_with('/') {
            return Err(CapsError::invalid(
                format!("{place}.paths[{i}]"),
                "must start with `/`",
            ));
        }
    }
    let methods = match doc.methods {
        None => DEFAULT_METHODS.iter().map(|m| (*m).to_owned()).collect(),
        Some(methods) => {
            let mut upper = Vec::new();
            for (i, method) in methods.iter().enumerate() {
                let valid = !method.is_empty() && method.bytes().all(|b| b.is_ascii_alphabetic());
                if !valid {
                    return Err(CapsError::invalid(
                        format!("{place}.methods[{i}]"),
                        "is not an HTTP method",
                    ));
                }
                upper.push(method.to_ascii_uppercase());
            }
            upper
        }
    };
    let mut headers = Vec::new();
    for (name, value) in doc.headers {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid {
            return Err(CapsError::invalid(
                at("headers"),
                format!("`{name}` is not a header name"),
            ));
        }
        if value
            .as_deref()
            .is_some_and(|v| v.bytes().any(|b| b == b'\r' || b == b'\n'))
        {
            return Err(CapsError::invalid(
                at("headers"),
                format!("the value of `{name}` has a line break"),
            ));
        }
        headers.push((name.to_ascii_lowercase(), value));
    }
    Ok(Grant {
        scheme: url.scheme().to_owned(),
        host: host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned(),
        wildcard,
        port,
        paths: doc.paths,
        methods,
        headers,
    })
}

/// Whether `url` names a loopback, private, link-local or otherwise local address.
/// Host names are judged by name (`localhost`); what a name resolves to is the
/// browser's business, so such names are simply not granted unless listed.
pub fn is_private(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => private_v4(ip),
        Some(Host::Ipv6(ip)) => private_v6(ip),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost") || name.ends_with(".local")
        }
        None => true,
    }
}

/// Whether an address is private, loopback, link-local, shared, or not routable.
pub fn is_private_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => private_v6(v6),
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240
}

fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link-local
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(doc: serde_json::Value) -> NetworkPolicy {
        NetworkPolicy::compile(serde_json::from_value(doc).unwrap()).unwrap()
    }

    fn code(p: &NetworkPolicy, method: &str, url: &str) -> Option<Code> {
        p.check(method, url).err().map(|d| d.code)
    }

    #[test]
    fn nothing_is_granted_by_default() {
        let p = NetworkPolicy::default();
        assert_eq!(
            code(&p, "GET", "https://example.com/"),
            Some(Code::NetDenied)
        );
        assert_eq!(
            code(&p, "GET", "http://127.0.0.1:8080/"),
            Some(Code::NetPrivate)
        );
        assert_eq!(code(&p, "GET", "http://[::1]/"), Some(Code::NetPrivate));
        assert_eq!(code(&p, "GET", "http://localhost/"), Some(Code::NetPrivate));
        assert_eq!(code(&p, "GET", "http://10.1.2.3/"), Some(Code::NetPrivate));
        assert_eq!(
            code(&p, "GET", "http://[::ffff:192.168.0.1]/"),
            Some(Code::NetPrivate)
        );
        assert_eq!(
            code(&p, "GET", "http://169.254.169.254/latest/meta-data"),
            Some(Code::NetPrivate)
        );
    }

    #[test]
    fn schemes_other_than_http_are_refused() {
        let p = policy(json!({"allow": [{"origin": "https://example.com"}]}));
        for url in [
            "data:text/plain,hi",
            "blob:https://example.com/1234",
            "file:///etc/passwd",
            "ftp://example.com/",
            "javascript:alert(1)",
        ] {
            assert_eq!(code(&p, "GET", url), Some(Code::NetScheme), "{url}");
        }
        assert_eq!(code(&p, "GET", "not a url"), Some(Code::NetDenied));
        assert_eq!(
            code(&p, "GET", "https://user:pw@example.com/"),
            Some(Code::NetDenied)
        );
    }

    #[test]
    fn origins_paths_and_methods() {
        let p = policy(json!({"allow": [
            {"origin": "https://api.example.com", "paths": ["/v1/"], "methods": ["get", "POST"]},
            {"origin": "http://127.0.0.1:8080"},
            {"origin": "https://*.cdn.example"},
        ]}));
        assert!(
            p.check("GET", "https://api.example.com/v1/items?q=1")
                .is_ok()
        );
        assert!(p.check("post", "https://api.example.com:443/v1/x").is_ok());
        assert_eq!(
            code(&p, "DELETE", "https://api.example.com/v1/x"),
            Some(Code::NetMethod)
        );
        assert_eq!(
            code(&p, "GET", "https://api.example.com/v2/x"),
            Some(Code::NetDenied)
        );
        assert_eq!(
            code(&p, "GET", "http://api.example.com/v1/x"),
            Some(Code::NetDenied)
        );
        assert_eq!(
            code(&p, "GET", "https://api.example.com:8443/v1/x"),
            Some(Code::NetDenied)
        );
        assert_eq!(
            code(&p, "GET", "https://evil.api.example.com/v1/x"),
            Some(Code::NetDenied)
        );
        // `..` is resolved before the path is checked.
        assert_eq!(
            code(&p, "GET", "https://api.example.com/v1/../admin"),
            Some(Code::NetDenied)
        );
        assert!(p.check("GET", "http://127.0.0.1:8080/anything").is_ok());
        assert_eq!(
            code(&p, "POST", "http://127.0.0.1:8080/"),
            Some(Code::NetMethod)
        );
        assert_eq!(
            code(&p, "GET", "http://127.0.0.1:8081/"),
            Some(Code::NetPrivate)
        );
        assert_eq!(
            code(&p, "GET", "http://127.0.0.2:8080/"),
            Some(Code::NetPrivate)
        );
        assert!(p.check("GET", "https://a.b.cdn.example/x").is_ok());
        assert_eq!(
            code(&p, "GET", "https://cdn.example/x"),
            Some(Code::NetDenied)
        );
        assert_eq!(
            code(&p, "GET", "https://cdn.example.evil/x"),
            Some(Code::NetDenied)
        );
    }

    #[test]
    fn redirect_origins_keep_injected_headers_home() {
        let p = policy(json!({"allow": [
            {"origin": "https://a.example", "headers": {"Authorization": "Bearer s3cret"}},
            {"origin": "https://b.example"},
            {"origin": "https://c.example:8443"},
        ]}));
        assert_eq!(p.redirect_origins(0), ["https://a.example"]);
        assert_eq!(
            p.redirect_origins(1),
            ["https://b.example", "https://c.example:8443"]
        );
        assert_eq!(
            p.grants[0].headers,
            [("authorization".to_owned(), Some("Bearer s3cret".to_owned()))]
        );
    }

    #[test]
    fn redirects_are_followed_blindly_only_where_every_hop_is_allowed() {
        let p = policy(json!({"allow": [
            {"origin": "https://open.example", "methods": ["GET", "POST"]},
            {"origin": "https://paths.example", "paths": ["/v1/"]},
            {"origin": "https://put.example", "methods": ["PUT"]},
            {"origin": "https://other.example"},
            {"origin": "https://key.example", "headers": {"X-Key": "k"}},
        ]}));
        let open = Some(vec![
            "https://open.example".to_owned(),
            "https://other.example".to_owned(),
        ]);
        assert_eq!(p.blind_redirect_origins(0, "GET"), open);
        // A POST may become a GET: both granted at open.example, only GET at
        // other.example, which is then left out.
        assert_eq!(
            p.blind_redirect_origins(0, "post"),
            Some(vec!["https://open.example".to_owned()])
        );
        assert_eq!(p.blind_redirect_origins(0, "DELETE"), None);
        assert_eq!(p.blind_redirect_origins(1, "GET"), None, "paths");
        assert_eq!(
            p.blind_redirect_origins(2, "PUT"),
            None,
            "a 303 makes a GET"
        );
        assert_eq!(
            p.blind_redirect_origins(4, "GET"),
            Some(vec!["https://key.example".to_owned()])
        );
        assert_eq!(p.blind_redirect_origins(9, "GET"), None);
        let within = |url: &str| p.within(&p.redirect_origins(4), &Url::parse(url).unwrap());
        assert!(within("https://key.example/x"));
        assert!(!within("https://open.example/x"));
    }

    #[test]
    fn bad_grants_are_clear_errors() {
        let err = |doc: serde_json::Value| {
            NetworkPolicy::compile(serde_json::from_value(doc).unwrap())
                .unwrap_err()
                .to_string()
        };
        assert!(
            err(json!({"allow": [{"origin": "example.com"}]})).starts_with(
                "capability document: network.allow[0].origin: `example.com` is not an origin"
            )
        );
        assert!(
            err(json!({"allow": [{"origin": "https://example.com/api"}]}))
                .contains("give paths in `paths`")
        );
        assert!(
            err(json!({"allow": [{"origin": "ftp://example.com"}]})).contains("http: or https:")
        );
        assert!(
            err(json!({"allow": [{"origin": "https://*.10.0.0.1"}]}))
                .contains("over a domain name")
        );
        assert!(
            err(json!({"allow": [{"origin": "https://x.example", "paths": ["v1"]}]}))
                .contains("paths[0]: must start with `/`")
        );
        assert!(
            err(json!({"allow": [{"origin": "https://x.example", "methods": ["GET /"]}]}))
                .contains("methods[0]: is not an HTTP method")
        );
        assert!(
            err(json!({"allow": [{"origin": "https://x.example", "headers": {"a b": "1"}}]}))
                .contains("is not a header name")
        );
        assert!(err(json!({"allow": [{"origin": "https://x.example", "headers": {"x": "1\r\nHost: evil"}}]})).contains("line break"));
        assert!(err(json!({"max_redirects": 50})).contains("at most 20"));
    }
}
