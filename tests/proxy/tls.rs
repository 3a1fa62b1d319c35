//! HTTPS with rustls and *ring* (src/plumbing/tls.rs): reqwest is built without a crypto provider of
//! its own, so a client built before one is installed would panic. These tests show that
//! every client mcpeval builds finds ring installed, in a process where nothing installed it
//! first, and that a TLS handshake and request succeed with it.
//!
//! tests/fixtures/tls/: a test CA (`ca.pem`) and a certificate for localhost and 127.0.0.1
//! signed by it (`localhost.pem`, key `localhost.key`), ECDSA P-256, valid until 2126; made
//! with `openssl req -x509` and `openssl x509 -req` (the CA's key was thrown away).

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use mcpeval::llm::{ApiClient, ApiKey, LlmConfig, Provider};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The variable that makes `child` build one client, in a process of its own.
const CASE_VAR: &str = "MCPEVAL_TLS_TEST_CASE";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

/// The installed default provider is ring's (its key provider, which names its crate).
fn assert_ring_installed() {
    let installed = CryptoProvider::get_default().expect("a default crypto provider");
    assert_eq!(
        format!("{:?}", installed.key_provider),
        format!(
            "{:?}",
            rustls::crypto::ring::default_provider().key_provider
        )
    );
}

/// Each client, built first thing in a fresh process: no panic, and ring is the provider.
#[test]
fn every_client_builds_in_a_fresh_process_with_ring() {
    let cases = ["openai", "anthropic", "gemini", "provider", "builder"];
    for case in cases {
        let output = Command::new(std::env::current_exe().expect("the test binary"))
            .args(["--exact", "tls::child", "--nocapture", "--test-threads=1"])
            .env(CASE_VAR, case)
            .output()
            .expect("the test binary runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{case}: {text}");
        assert!(text.contains(&format!("built {case}")), "{case}: {text}");
    }
}

/// Not a test of its own: what `every_client_builds_in_a_fresh_process_with_ring` runs.
#[test]
fn child() {
    let Ok(case) = std::env::var(CASE_VAR) else {
        return;
    };
    assert!(
        CryptoProvider::get_default().is_none(),
        "nothing installed a provider before the client"
    );
    let config = || LlmConfig::new("https://127.0.0.1:9/", ApiKey::new("k"));
    match case.as_str() {
        "openai" => drop(ApiClient::new(Provider::OpenAi, config(), "m").expect("client")),
        "anthropic" => drop(ApiClient::new(Provider::Anthropic, config(), "m").expect("client")),
        "gemini" => drop(ApiClient::new(Provider::Gemini, config(), "models/m").expect("client")),
        "provider" => drop(Provider::Anthropic.client(config(), "m").expect("client")),
        "builder" => drop(mcpeval::tls::client_builder().build().expect("client")),
        other => panic!("no case {other}"),
    }
    assert_ring_installed();
    println!("built {case}");
}

/// A TLS acceptor with the localhost certificate, on ring.
fn acceptor() -> tokio_rustls::TlsAcceptor {
    let certs = CertificateDer::pem_file_iter(fixture("localhost.pem"))
        .expect("localhost.pem")
        .collect::<Result<Vec<_>, _>>()
        .expect("certificates");
    let key = PrivateKeyDer::from_pem_file(fixture("localhost.key")).expect("localhost.key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("protocol versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("server config");
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

/// A local HTTPS server answers one request with `ok`.
async fn serve_once(listener: tokio::net::TcpListener) {
    let acceptor = acceptor();
    let (tcp, _) = listener.accept().await.expect("a connection");
    let mut tls = acceptor.accept(tcp).await.expect("the TLS handshake");
    let mut request = Vec::new();
    let mut buffer = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tls.read(&mut buffer).await.expect("the request");
        assert!(n > 0, "the request ended early");
        request.extend_from_slice(&buffer[..n]);
    }
    tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
        .await
        .expect("the answer");
    tls.shutdown().await.expect("close");
}

#[tokio::test]
async fn an_https_request_succeeds_with_ring() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let server = tokio::spawn(serve_once(listener));
    let ca = std::fs::read(fixture("ca.pem")).expect("ca.pem");
    let client = mcpeval::tls::client_builder()
        .tls_certs_only([reqwest::Certificate::from_pem(&ca).expect("the CA")])
        .build()
        .expect("client");
    let response = client
        .get(format!("https://localhost:{port}/"))
        .send()
        .await
        .expect("the HTTPS request");
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.expect("body"), "ok");
    server.await.expect("the server");
    assert_ring_installed();
}

#[tokio::test]
async fn an_unknown_certificate_is_refused() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let server = tokio::spawn(async move {
        // The client ends the handshake: the server's side of it fails.
        if let Ok((tcp, _)) = listener.accept().await {
            let _ = acceptor().accept(tcp).await;
        }
    });
    let client = mcpeval::tls::client_builder().build().expect("client");
    let error = client
        .get(format!("https://localhost:{port}/"))
        .send()
        .await
        .expect_err("a certificate of an unknown CA");
    assert!(error.is_connect(), "{error:?}");
    server.abort();
}

/// The packages `cargo tree` lists for this crate's normal and build dependencies, with
/// `args` (features).
fn dependency_packages(args: &[&str]) -> Vec<String> {
    let output = crate::support::cargo::command()
        .args([
            "tree",
            "--offline",
            "--locked",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

/// No C build of a TLS library in a crate that adds mcpeval: ring, not aws-lc, with and
/// without default features.
#[test]
fn no_aws_lc_in_the_dependency_graph() {
    for args in [&[][..], &["--no-default-features"][..]] {
        let packages = dependency_packages(args);
        assert!(
            packages.iter().any(|p| p == "ring"),
            "{args:?}: {packages:?}"
        );
        assert!(packages.iter().any(|p| p == "reqwest"), "{args:?}");
        // process-wrap: rmcp's child-process transport, which only the tests use.
        for heavy in [
            "aws-lc-sys",
            "aws-lc-rs",
            "cmake",
            "openssl-sys",
            "console",
            "process-wrap",
        ] {
            assert!(!packages.iter().any(|p| p == heavy), "{args:?}: {heavy}");
        }
    }
}

/// `extension-releases` is what brings the zip reader.
#[test]
fn the_zip_reader_comes_with_extension_releases_only() {
    assert!(dependency_packages(&[]).iter().any(|p| p == "zip"));
    assert!(
        !dependency_packages(&["--no-default-features"])
            .iter()
            .any(|p| p == "zip")
    );
}
