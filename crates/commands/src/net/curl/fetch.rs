//! Sending a request through the gate. Redirects are the gate's to follow (it checks
//! every hop), except when `--max-redirs` asks for fewer hops than the policy allows:
//! then each hop is its own request through the gate, so the count is exact and every
//! hop is still checked.

use super::url;
use sandtab_caps::{Code, Denial, Gate, HttpRequest, HttpResponse, Via};

/// How redirects are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Not at all: a 3xx is the answer.
    No,
    /// By the gate, within the policy's limit.
    Gate,
    /// Hop by hop here, at most this many (fewer than the policy's limit).
    Upto(u32),
}

impl Follow {
    /// The mode for `-L` (`location`) with `--max-redirs` (`max`, -1 for no limit)
    /// under a policy allowing `policy_max` redirects.
    pub fn choose(location: bool, max: Option<i64>, policy_max: u32) -> Follow {
        match (location, max) {
            (false, _) => Follow::No,
            (true, Some(n)) if n >= 0 && n < i64::from(policy_max) => Follow::Upto(n as u32),
            (true, _) => Follow::Gate,
        }
    }
}

/// Why a transfer got no response.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The gate refused it, or the request failed on the way.
    Gate(Denial),
    /// `--max-redirs` hops were followed and another redirect came.
    TooManyRedirects(u32),
}

/// What came back, and how many redirects were followed to get it (when known).
#[derive(Debug)]
pub(crate) struct Fetched {
    pub response: HttpResponse,
    pub redirects: Option<u32>,
}

/// Whether `status` is a redirect curl follows.
pub(crate) fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Sends `request`, following redirects as `follow` says.
pub(crate) async fn send(
    gate: &Gate,
    mut request: HttpRequest,
    follow: Follow,
) -> Result<Fetched, Failure> {
    let limit = match follow {
        Follow::No | Follow::Gate => {
            request.follow_redirects = follow == Follow::Gate;
            let asked = request.url.clone();
            let response = gate
                .fetch(request, Via::Shell)
                .await
                .map_err(Failure::Gate)?;
            // The gate does not say how many hops it followed; a response from
            // elsewhere than asked took at least one.
            let same = response.url.is_empty()
                || response.url == asked
                || response.url.strip_suffix('/') == Some(asked.as_str());
            let redirects = (same && !response.redirected).then_some(0);
            return Ok(Fetched {
                response,
                redirects,
            });
        }
        Follow::Upto(limit) => limit,
    };
    request.follow_redirects = false;
    let mut hops = 0;
    loop {
        let url = request.url.clone();
        let response = match gate.fetch(request.clone(), Via::Shell).await {
            Ok(response) => response,
            // A later hop refused is a refused redirect, as the gate words it.
            Err(denial)
                if hops > 0 && denial.code.is_refusal() && denial.code != Code::NetTooLarge =>
            {
                return Err(Failure::Gate(Denial::new(
                    Code::NetRedirect,
                    format!("a redirect to {url} was refused: {}", denial.message),
                )));
            }
            Err(denial) => return Err(Failure::Gate(denial)),
        };
        let location = response.header("location").map(str::to_owned);
        match location {
            Some(location) if is_redirect(response.status) && !response.redirected => {
                if hops >= limit {
                    return Err(Failure::TooManyRedirects(limit));
                }
                hops += 1;
                let method = request.method.to_ascii_uppercase();
                let to_get = response.status == 303 && method != "HEAD";
                if to_get || (matches!(response.status, 301 | 302) && method == "POST") {
                    request.method = "GET".into();
                    request.body = None;
                }
                request.url = url::join(&url, &location);
            }
            _ => {
                let redirects = (!response.redirected).then_some(hops);
                return Ok(Fetched {
                    response,
                    redirects,
                });
            }
        }
    }
}
