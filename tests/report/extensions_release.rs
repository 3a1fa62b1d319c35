//! `github.com/owner/repo[@version]` extension packages: our notebook extension served as a
//! GitHub release by a fake release server (`MCPEVAL_EXTENSION_DOWNLOAD_URL`), downloaded
//! into mcpchecker's cache (a temporary `XDG_CACHE_HOME`), checked against the release's
//! checksums, reused offline, and a clear failure when offline with nothing cached.

use crate::support::fake_release;

use crate::support::output;

use output::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fake_release::{FakeRelease, zip_of};
use sha2::{Digest, Sha256};

const FIXTURES: &str = "tests/fixtures/extensions";
const OWNER: &str = "mcpeval-test";
const REPO: &str = "notebook";
const TAG: &str = "v1.0.0";

fn platform() -> String {
    let (os, arch) = mcpeval::extension::go_platform();
    format!("{os}-{arch}")
}

/// `notebook-<os>-<arch>.zip`, as the release names it.
fn asset() -> String {
    format!("{REPO}-{}.zip", platform())
}

/// The release archive: the notebook extension as `notebook-<os>-<arch>`.
fn release_zip() -> Vec<u8> {
    let program = std::fs::read(format!("{FIXTURES}/notebook-ext")).unwrap();
    zip_of(&[(&format!("{REPO}-{}", platform()), &program)])
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A release with the zip and GoReleaser's checksums file.
fn publish_release(server: &FakeRelease) -> Vec<u8> {
    let zip = release_zip();
    let checksums = format!("{}  {}\n0000  other.zip\n", sha256(&zip), asset());
    server.publish(OWNER, REPO, TAG, &asset(), zip.clone());
    server.publish(
        OWNER,
        REPO,
        TAG,
        "notebook_1.0.0_checksums.txt",
        checksums.into_bytes(),
    );
    zip
}

/// A base URL where nothing listens.
fn offline_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

struct Dirs {
    root: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Self {
        Dirs {
            root: tempfile::tempdir().unwrap(),
        }
    }

    fn cache(&self) -> PathBuf {
        self.root.path().join("cache")
    }

    /// Where mcpchecker (and mcpeval) keep the release zip.
    fn cached_zip(&self) -> PathBuf {
        self.cache().join(format!(
            ".mcpchecker/{OWNER}-{REPO}/binaries/{REPO}-{TAG}-{}.zip",
            platform()
        ))
    }

    fn command(&self, base_url: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
        command
            .env("XDG_CACHE_HOME", self.cache())
            .env("NOTEBOOK_DIR", self.root.path())
            .env("MCPEVAL_OUTPUT_DIR", self.root.path().join("out"))
            .env("MCPEVAL_EXTENSION_DOWNLOAD_URL", base_url)
            .env("RUST_BACKTRACE", "0")
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        command
    }

    fn check(&self, eval: &str, base_url: &str) -> Output {
        self.command(base_url)
            .args(["check", &format!("{FIXTURES}/{eval}")])
            .output()
            .unwrap()
    }
}

fn notes(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("notes.txt")).unwrap_or_default()
}

#[test]
fn a_release_is_downloaded_checked_cached_and_run() {
    let server = FakeRelease::start();
    let zip = publish_release(&server);
    let dirs = Dirs::new();
    let out = dirs.check("release.yaml", &server.url);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        notes(dirs.root.path()),
        "setup: > first line\ncleanup: > cleaned up\n"
    );
    let download = format!("/{OWNER}/{REPO}/releases/download/{TAG}");
    let asked = server.asked();
    assert!(
        asked.contains(&format!("{download}/{}", asset())),
        "{asked:?}"
    );
    assert!(
        asked.contains(&format!("{download}/notebook_1.0.0_checksums.txt")),
        "{asked:?}"
    );
    assert_eq!(std::fs::read(dirs.cached_zip()).unwrap(), zip);
    let index = dirs
        .cache()
        .join(format!(".mcpchecker/{OWNER}-{REPO}/binaries-index.json"));
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(index).unwrap()).unwrap();
    assert_eq!(index[0]["version"], TAG);
    assert_eq!(index[0]["platform"], platform());
    assert_eq!(index[0]["sha256"], sha256(&zip));
    assert_eq!(
        index[0]["zip_path"],
        dirs.cached_zip().display().to_string()
    );
}

#[test]
fn a_cached_release_is_reused_without_the_network() {
    let server = FakeRelease::start();
    publish_release(&server);
    let dirs = Dirs::new();
    let first = dirs.check("release.yaml", &server.url);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    drop(server);
    let again = dirs.check("release.yaml", &offline_url());
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert_eq!(
        notes(dirs.root.path()).matches("first line").count(),
        2,
        "it ran twice"
    );
}

#[test]
fn a_download_that_breaks_the_release_checksum_fails_and_is_not_cached() {
    let server = FakeRelease::start();
    server.publish(OWNER, REPO, TAG, &asset(), release_zip());
    let wrong = format!("{}  {}\n", "ab".repeat(32), asset());
    server.publish(OWNER, REPO, TAG, "checksums.txt", wrong.into_bytes());
    let dirs = Dirs::new();
    let out = dirs.check("release.yaml", &server.url);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    assert!(
        shown.contains(&format!(
            "checksum mismatch for {}: the release's checksums.txt says {}",
            asset(),
            "ab".repeat(32)
        )),
        "{shown}"
    );
    assert!(shown.contains("nothing was cached"), "{shown}");
    assert!(!dirs.cached_zip().exists());
    assert_eq!(notes(dirs.root.path()), "", "the extension ran");
}

#[test]
fn offline_with_nothing_cached_says_what_it_tried_and_where_to_put_the_release() {
    let dirs = Dirs::new();
    let base = offline_url();
    let out = dirs.check("release.yaml", &base);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    for words in [
        format!("extension `nb` (package github.com/{OWNER}/{REPO}@{TAG}) cannot start"),
        format!(
            "GET {base}/{OWNER}/{REPO}/releases/download/{TAG}/{}",
            asset()
        ),
        format!("put that file at {}", dirs.cached_zip().display()),
        "point `package` at the binary".to_owned(),
    ] {
        assert!(shown.contains(&words), "{words}\nnot in:\n{shown}");
    }
}

#[test]
fn without_a_version_the_latest_release_is_asked_for() {
    let server = FakeRelease::start();
    publish_release(&server);
    server.set_latest(OWNER, REPO, TAG);
    let dirs = Dirs::new();
    let out = dirs.check("release-latest.yaml", &server.url);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let asked = server.asked();
    assert_eq!(
        asked[0],
        format!("/api/v3/repos/{OWNER}/{REPO}/releases/latest")
    );
    assert!(dirs.cached_zip().exists(), "{asked:?}");
}

#[test]
fn validate_downloads_nothing_and_says_the_release_is_not_cached() {
    let server = FakeRelease::start();
    publish_release(&server);
    let dirs = Dirs::new();
    let out = dirs
        .command(&server.url)
        .args(["validate", &format!("{FIXTURES}/release.yaml")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ext-release::passes\n"
    );
    assert!(server.asked().is_empty(), "{:?}", server.asked());
    assert!(
        stderr.contains(&format!(
            "config.extensions.nb.package: github.com/{OWNER}/{REPO} is not cached"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("spec.setup[0].nb.append"), "{stderr}");
}
