//! The TLS crypto provider of every HTTPS client mcpeval builds (LLM APIs, the LLM proxy's
//! upstream, `http` steps, MCP servers over HTTP, extension release downloads): rustls with
//! *ring*, installed once as the process's default before the first client is built.
//!
//! reqwest is built without a provider of its own (`rustls-no-provider`): its default,
//! aws-lc-rs, is a large C build that cost every crate adding mcpeval over a minute of its
//! cold build. Without an installed provider reqwest panics when a client is built, so every
//! place that builds one goes through [`install_provider`] (the harness and the binary do it
//! first thing as well).

use std::sync::Once;

/// Installs rustls' *ring* provider as the process default, once. When the process already
/// has a default provider (the program embedding the harness installed its own), that one
/// stays and serves mcpeval's clients too.
pub fn install_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err: another provider was installed first; it serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder whose TLS has a provider: [`install_provider`], then
/// `reqwest::Client::builder()`.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite_names(provider: &rustls::crypto::CryptoProvider) -> Vec<String> {
        provider
            .cipher_suites
            .iter()
            .map(|suite| format!("{:?}", suite.suite()))
            .collect()
    }

    #[test]
    fn the_default_provider_is_ring_once_installed() {
        install_provider();
        install_provider();
        let installed = rustls::crypto::CryptoProvider::get_default().expect("installed");
        let ring = rustls::crypto::ring::default_provider();
        assert_eq!(suite_names(installed), suite_names(&ring));
        assert_eq!(
            installed.kx_groups.len(),
            ring.kx_groups.len(),
            "ring's key exchange groups"
        );
    }

    #[test]
    fn a_client_builds() {
        client_builder()
            .build()
            .expect("a client with ring as its provider");
    }
}
