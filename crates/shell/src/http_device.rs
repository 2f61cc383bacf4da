//! The `http` device (`/dev/sandtab/http`): how a guest that cannot import host
//! functions (CPython's `urllib`, `http.client`, `requests`) sends an HTTP request
//! through the capability gate, with the same checks, refusal codes and audit
//! entries as `curl` (`via: guest`).
//!
//! A request is one line of JSON, a newline, then the body:
//! `{"method": "GET", "url": "http://...", "headers": [["name", "value"], ...],
//!   "body": true, "follow_redirects": false}`.
//! The answer is one line of JSON, a newline, then the body:
//! `{"status": 200, "status_text": "OK", "headers": [...], "url": "...",
//!   "redirected": false}`, or `{"error": {"code": "CAP_NET_DENIED", "message": "..."}}`.

use sandtab_caps::{Code, Denial, Gate, HttpRequest, HttpResponse, Via};
use serde::Deserialize;
use serde_json::json;

/// The device's name under `/dev/sandtab`.
pub(crate) const NAME: &str = "http";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestHead {
    #[serde(default)]
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    /// Whether the bytes after the head are a body (an empty one included).
    #[serde(default)]
    body: bool,
    #[serde(default)]
    follow_redirects: bool,
}

/// Parses `request` (head, newline, body).
fn parse(request: &[u8]) -> Result<HttpRequest, Denial> {
    let split = request.iter().position(|&b| b == b'\n');
    let (head, body) = match split {
        Some(at) => (&request[..at], &request[at + 1..]),
        None => (request, &[][..]),
    };
    let head: RequestHead = serde_json::from_slice(head).map_err(|err| {
        Denial::new(
            Code::BadArgs,
            format!("the request to /dev/sandtab/{NAME} is not one line of JSON: {err}"),
        )
    })?;
    Ok(HttpRequest {
        method: head.method,
        url: head.url,
        headers: head.headers,
        body: head.body.then(|| body.to_vec()),
        follow_redirects: head.follow_redirects,
    })
}

/// The answer the guest reads for `outcome`.
fn answer(outcome: Result<HttpResponse, Denial>) -> Vec<u8> {
    let (head, body) = match outcome {
        Ok(response) => (
            json!({
                "status": response.status,
                "status_text": response.status_text,
                "headers": response.headers,
                "url": response.url,
                "redirected": response.redirected,
            }),
            response.body,
        ),
        Err(denial) => (
            json!({"error": {"code": denial.code.as_str(), "message": denial.message}}),
            Vec::new(),
        ),
    };
    let mut bytes = head.to_string().into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    bytes
}

/// Sends the guest's `request` through `gate` and gives back its answer.
pub(crate) async fn exchange(gate: &Gate, request: &[u8]) -> Vec<u8> {
    let outcome = match parse(request) {
        Ok(request) => gate.fetch(request, Via::Guest).await,
        Err(denial) => Err(denial),
    };
    answer(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_a_json_head_then_the_body() {
        let request =
            parse(b"{\"method\":\"POST\",\"url\":\"http://a/\",\"headers\":[[\"x\",\"1\"]],\"body\":true}\n\x00\nb")
                .unwrap();
        assert_eq!(request.method, "POST");
        assert_eq!(request.headers, vec![("x".to_string(), "1".to_string())]);
        assert_eq!(request.body.as_deref(), Some(&b"\x00\nb"[..]));
        let request = parse(b"{\"url\":\"http://a/\"}").unwrap();
        assert_eq!(request.body, None);
    }

    #[test]
    fn a_malformed_request_is_answered_with_an_error_not_a_panic() {
        for bad in [
            &b""[..],
            b"{",
            b"[1]\n",
            b"{\"url\":1}\n",
            b"{\"url\":\"x\",\"y\":2}",
        ] {
            let denial = parse(bad).unwrap_err();
            assert_eq!(denial.code, Code::BadArgs, "{bad:?}");
        }
        let answer = answer(Err(Denial::new(Code::NetDenied, "no")));
        assert_eq!(
            answer,
            b"{\"error\":{\"code\":\"CAP_NET_DENIED\",\"message\":\"no\"}}\n".to_vec()
        );
    }
}
