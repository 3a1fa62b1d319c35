//! `mcpeval init --url URL --header "Name: value"`: the headers reach an HTTP server that
//! refuses requests without them, and the MCP config init writes names a variable for a
//! credential, never the credential itself.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::support::server::{Observed, TestServer};
use super::{assert_ok, init, mcpeval_in, read, text, tree, validate};

const TOKEN: &str = "s3cret-t0ken-4711";

/// 401 unless the request carries `Authorization: Bearer TOKEN` and `X-Tenant: acme`.
async fn require_headers(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let authorized = headers
        .get("authorization")
        .is_some_and(|v| v.as_bytes() == format!("Bearer {TOKEN}").as_bytes());
    let tenant = headers.get("x-tenant").is_some_and(|v| v == "acme");
    if authorized && tenant {
        next.run(request).await
    } else {
        (StatusCode::UNAUTHORIZED, "missing or wrong bearer token").into_response()
    }
}

/// The test server over streamable HTTP behind [`require_headers`], on `runtime`.
fn guarded_server(runtime: &tokio::runtime::Runtime) -> String {
    use rmcp::transport::StreamableHttpService;
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    runtime.block_on(async {
        let observed = Arc::new(Observed::default());
        let service = StreamableHttpService::new(
            move || {
                Ok(TestServer {
                    observed: observed.clone(),
                })
            },
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(require_headers));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        format!("http://{address}/mcp")
    })
}

#[test]
fn init_sends_the_headers_and_writes_a_variable_for_the_credential() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = guarded_server(&runtime);
    let dir = tempfile::tempdir().unwrap();
    let base = [
        "--url",
        url.as_str(),
        "--name",
        "guarded",
        "--timeout",
        "20s",
    ];

    // Without the headers the server refuses, and init says what it answered.
    let out = init(dir.path(), &base);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "server `{url}`: initialize failed: unexpected server response: HTTP 401 \
             Unauthorized: missing or wrong bearer token"
        )) && stderr.contains("pass them with --header \"Authorization: Bearer …\""),
        "{stderr}"
    );
    assert!(!stderr.contains("rmcp::"), "{stderr}");
    assert!(!dir.path().join("evals").exists());

    let bearer = format!("Authorization: Bearer {TOKEN}");
    let mut args = base.to_vec();
    args.extend(["--header", &bearer, "--header", "X-Tenant: acme"]);
    let out = init(dir.path(), &args);
    assert_ok(&out);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "warning: the header `Authorization` looks like a credential: mcp-config.yaml \
             reads it from the variable GUARDED_AUTHORIZATION"
        ),
        "{stderr}"
    );
    let eval_dir = dir.path().join("evals/guarded");
    let config = read(eval_dir.join("mcp-config.yaml"));
    assert!(
        config.contains(
            "    headers:\n      Authorization: \"Bearer ${GUARDED_AUTHORIZATION}\"\n      \
             X-Tenant: acme\n"
        ),
        "{config}"
    );
    let readme = read(eval_dir.join("README.md"));
    assert!(
        readme.contains("- `GUARDED_AUTHORIZATION`: the `Authorization` header's credential"),
        "{readme}"
    );
    for (path, contents) in tree(dir.path()) {
        assert!(
            !contents.contains(TOKEN),
            "{} holds the token",
            path.display()
        );
    }
    assert!(!stderr.contains(TOKEN) && !text(&out.stdout).contains(TOKEN));

    // The eval loads with the variable set, and says which one is missing without it.
    let tests = validate(
        &eval_dir.join("eval.yaml"),
        &[("GUARDED_AUTHORIZATION", TOKEN)],
    );
    assert!(!tests.is_empty());
    let out = mcpeval_in(&eval_dir, &["validate", "eval.yaml"], &[]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("`GUARDED_AUTHORIZATION` is not set")
            || text(&out.stdout).contains("`GUARDED_AUTHORIZATION` is not set"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

#[test]
fn a_bad_header_or_one_without_url_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9/mcp";
    for (args, message) in [
        (
            vec!["--url", url, "--header", "Bearer s3cret"],
            "--header: expected \"Name: value\"",
        ),
        (
            vec!["--url", url, "--header", ": s3cret"],
            "--header: the header's name (before the `:`) is empty",
        ),
        (
            vec![
                "--command",
                "mcpeval demo-server",
                "--header",
                "X-Tenant: acme",
            ],
            "--header is for an HTTP server: pass it with --url URL",
        ),
    ] {
        let out = init(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("s3cret"), "{args:?}: {stderr}");
    }
}
