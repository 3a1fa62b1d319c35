//! What the proxies (MCP and LLM) accept of a request's `Host` and `Origin`, against DNS
//! rebinding: they listen on 127.0.0.1, and a web page whose name resolves there must not
//! reach them. A request without either header (as agent programs send) is accepted; a
//! `Host` or `Origin` that names anything but a loopback host is refused with 403, as the
//! MCP transport spec requires of local servers.

use http::{HeaderMap, StatusCode, header};

/// Why a request was refused: its HTTP status and a plain-text reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    /// 400 for a header that does not parse, 403 for a foreign one.
    pub status: StatusCode,
    /// The reason, e.g. `Forbidden: Origin header is not allowed`.
    pub reason: &'static str,
}

/// Checks `Host` and `Origin`: both absent or naming `localhost`, `127.0.0.1` or `::1`.
pub fn check(headers: &HeaderMap) -> Result<(), Refusal> {
    check_host(headers)?;
    check_origin(headers)
}

fn check_host(headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(host) = headers.get(header::HOST) else {
        return Ok(());
    };
    let authority = host
        .to_str()
        .ok()
        .and_then(|host| host.parse::<http::uri::Authority>().ok());
    match authority {
        None => Err(Refusal {
            status: StatusCode::BAD_REQUEST,
            reason: "Bad Request: Invalid Host header",
        }),
        Some(authority) if is_loopback(authority.host()) => Ok(()),
        Some(_) => Err(Refusal {
            status: StatusCode::FORBIDDEN,
            reason: "Forbidden: Host header is not allowed",
        }),
    }
}

/// An `Origin` is `scheme://host[:port]`; `null` (an opaque origin) and anything else that
/// is not a loopback origin is foreign.
fn check_origin(headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let uri = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.parse::<http::Uri>().ok());
    let loopback = uri.is_some_and(|uri| {
        matches!(uri.scheme_str(), Some("http" | "https"))
            && uri.path_and_query().is_none_or(|path| path.as_str() == "/")
            && uri.host().is_some_and(is_loopback)
    });
    if loopback {
        Ok(())
    } else {
        Err(Refusal {
            status: StatusCode::FORBIDDEN,
            reason: "Forbidden: Origin header is not allowed",
        })
    }
}

fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ["localhost", "127.0.0.1", "::1"]
        .iter()
        .any(|allowed| host.eq_ignore_ascii_case(allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(headers: &[(&str, &str)]) -> u16 {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        check(&map).map_or_else(|refusal| refusal.status.as_u16(), |()| 200)
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_are_refused() {
        let cases: &[(&[(&str, &str)], u16)] = &[
            (&[], 200),
            (&[("host", "127.0.0.1:4000")], 200),
            (&[("host", "LOCALHOST")], 200),
            (&[("host", "[::1]:80")], 200),
            (&[("host", "evil.example")], 403),
            (&[("host", "127.0.0.1.evil.example")], 403),
            (&[("host", "a b")], 400),
            (&[("origin", "http://localhost:3000")], 200),
            (&[("origin", "https://127.0.0.1")], 200),
            (&[("origin", "http://[::1]:8080")], 200),
            (&[("origin", "https://evil.example")], 403),
            (&[("origin", "http://localhost.evil.example")], 403),
            (&[("origin", "null")], 403),
            (&[("origin", "file://")], 403),
            (&[("origin", "chrome-extension://localhost")], 403),
            (
                &[("host", "localhost"), ("origin", "http://evil.example")],
                403,
            ),
        ];
        for (headers, expected) in cases {
            assert_eq!(status(headers), *expected, "{headers:?}");
        }
    }
}
