//! A `github.com/owner/repo[@version]` package: the release asset of this OS and architecture,
//! fetched as mcpchecker fetches it. The zip `<repo>-<os>-<arch>.zip` of the release (the
//! latest one from the GitHub API when no version is given) is downloaded into mcpchecker's
//! cache (reused when present), checked against the release's checksums file when it
//! publishes one, and its binary `<repo>-<os>-<arch>` extracted.
//!
//! `MCPEVAL_EXTENSION_DOWNLOAD_URL` replaces `https://github.com` (releases under
//! `<url>/<owner>/<repo>/releases/download/`, the API under `<url>/api/v3`, as GitHub
//! Enterprise lays them out): a mirror, or a fake release server in tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::cache::{ReleaseCache, WITHOUT_RELEASES, extract_binary, sha256_hex};
use crate::config::GitHubPackage;

/// The variable that moves the download base URL.
pub const DOWNLOAD_URL_VAR: &str = "MCPEVAL_EXTENSION_DOWNLOAD_URL";

/// Bound on one download (mcpchecker's).
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// Go's names of this OS and architecture, as release assets use them (`linux`, `amd64`).
pub fn go_platform() -> (&'static str, &'static str) {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    (os, arch)
}

/// Where releases come from.
struct Urls {
    /// `…/<owner>/<repo>/releases/download`.
    download: String,
    /// `…/repos/<owner>/<repo>/releases/latest`.
    latest: String,
}

impl Urls {
    fn of(package: &GitHubPackage, base: Option<&str>) -> Self {
        let (owner, repo) = (&package.owner, &package.repo);
        let (site, api) = match base.map(|b| b.trim_end_matches('/')) {
            Some(base) => (base.to_owned(), format!("{base}/api/v3")),
            None => (
                "https://github.com".to_owned(),
                "https://api.github.com".to_owned(),
            ),
        };
        Urls {
            download: format!("{site}/{owner}/{repo}/releases/download"),
            latest: format!("{api}/repos/{owner}/{repo}/releases/latest"),
        }
    }
}

/// Refuses a release package unless this build reads release archives (the cargo feature
/// `extension-releases`, which `built_in` says), before anything is downloaded.
fn releases_built_in(built_in: bool) -> Result<(), String> {
    match built_in {
        true => Ok(()),
        false => Err(WITHOUT_RELEASES.to_owned()),
    }
}

/// The extension's binary: from the cache, else downloaded; extracted under `extract_root`.
/// `base` is the download base URL when [`DOWNLOAD_URL_VAR`] sets one.
pub async fn release_binary(
    package: &GitHubPackage,
    base: Option<&str>,
    extract_root: &Path,
) -> Result<PathBuf, String> {
    releases_built_in(cfg!(feature = "extension-releases"))?;
    let urls = Urls::of(package, base);
    let cache = ReleaseCache::of(&package.owner, &package.repo)?;
    let (os, arch) = go_platform();
    let platform = format!("{os}-{arch}");
    let client = crate::plumbing::tls::client_builder()
        .user_agent(concat!("mcpeval/", env!("CARGO_PKG_VERSION")))
        .timeout(DOWNLOAD_TIMEOUT)
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let version = match &package.version {
        Some(version) => version.clone(),
        None => latest_version(&client, &urls, &cache, &platform).await?,
    };
    let zip = match cache.cached(&version, &platform) {
        Some(zip) => zip,
        None => {
            let asset = Asset {
                repo: &package.repo,
                version: &version,
                platform: &platform,
            };
            download(&client, &urls, &cache, &asset).await?
        }
    };
    let dir = extract_root.join(format!(
        "{}-{}-{version}-{platform}",
        package.owner, package.repo
    ));
    let name = format!("{}-{platform}", package.repo);
    tokio::task::spawn_blocking(move || extract_binary(&zip, &name, &dir))
        .await
        .map_err(|e| format!("extracting the binary failed: {e}"))?
}

/// The latest release's tag; offline, the latest one cached.
async fn latest_version(
    client: &reqwest::Client,
    urls: &Urls,
    cache: &ReleaseCache,
    platform: &str,
) -> Result<String, String> {
    let asked = async {
        let response = client.get(&urls.latest).send().await.map_err(describe)?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let body: serde_json::Value = response.json().await.map_err(describe)?;
        body.get("tag_name")
            .and_then(|t| t.as_str())
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| "the answer has no `tag_name`".to_owned())
    };
    match asked.await {
        Ok(tag) => Ok(tag),
        Err(why) => cache.latest_cached(platform).ok_or_else(|| {
            format!(
                "cannot find the latest release (GET {}: {why}) and no release is cached in {}; pin a version (`@v1.2.3`) or point `package` at a local binary",
                urls.latest,
                cache.dir.display()
            )
        }),
    }
}

/// The release asset of one repository, version and platform.
struct Asset<'a> {
    repo: &'a str,
    version: &'a str,
    platform: &'a str,
}

impl Asset<'_> {
    /// `<repo>-<os>-<arch>.zip`
    fn file(&self) -> String {
        format!("{}-{}.zip", self.repo, self.platform)
    }
}

/// Downloads the zip of `asset`, checks it against the release's checksums, caches it.
async fn download(
    client: &reqwest::Client,
    urls: &Urls,
    cache: &ReleaseCache,
    asset: &Asset<'_>,
) -> Result<PathBuf, String> {
    let url = format!("{}/{}/{}", urls.download, asset.version, asset.file());
    let bytes = match get(client, &url).await {
        Ok(Some(bytes)) => bytes,
        Ok(None) => Err(format!("GET {url}: HTTP 404 Not Found"))?,
        Err(why) => Err(offline_help(&url, &why, cache, asset))?,
    };
    verify_checksum(client, urls, asset, &bytes).await?;
    cache.add(asset.version, asset.platform, &bytes)
}

/// What the failed download tried, and how to work without network.
fn offline_help(url: &str, why: &str, cache: &ReleaseCache, asset: &Asset<'_>) -> String {
    format!(
        "the release is not cached and the download failed: GET {url}: {why}. Without network, put that file at {} (mcpchecker's cache), or build the extension and point `package` at the binary (`package: ./path/to/binary`)",
        cache.zip_path(asset.version, asset.platform).display()
    )
}

/// Checks `bytes` against the first checksums file the release publishes: GoReleaser's
/// `<repo>_<version>_checksums.txt`, `checksums.txt`, or `<asset>.sha256`. A release
/// without one is not checked.
async fn verify_checksum(
    client: &reqwest::Client,
    urls: &Urls,
    asset: &Asset<'_>,
    bytes: &[u8],
) -> Result<(), String> {
    let (repo, version) = (asset.repo, asset.version);
    let asset = asset.file();
    let bare = version.strip_prefix('v').unwrap_or(version);
    let candidates = [
        format!("{repo}_{bare}_checksums.txt"),
        "checksums.txt".to_owned(),
        format!("{asset}.sha256"),
    ];
    for file in candidates {
        let url = format!("{}/{version}/{file}", urls.download);
        let Some(text) = get(client, &url)
            .await
            .map_err(|why| format!("GET {url}: {why}"))?
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        let expected = checksum_of(&text, &asset, file.ends_with(".sha256"))
            .ok_or_else(|| format!("the release's checksums file {file} does not list {asset}"))?;
        let actual = sha256_hex(bytes);
        return if expected.eq_ignore_ascii_case(&actual) {
            Ok(())
        } else {
            Err(format!(
                "checksum mismatch for {asset}: the release's {file} says {expected}, the download has {actual}; nothing was cached"
            ))
        };
    }
    Ok(())
}

/// The checksum of `asset` in a checksums file (`<sha256>  <name>` lines), or the first word
/// of a file for that asset alone.
fn checksum_of(text: &str, asset: &str, alone: bool) -> Option<String> {
    if alone {
        return text.split_whitespace().next().map(str::to_owned);
    }
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let sum = words.next()?;
        let name = words.next()?.trim_start_matches('*');
        (name == asset).then(|| sum.to_owned())
    })
}

/// GETs `url`: its body, `None` for 404, else why not.
async fn get(client: &reqwest::Client, url: &str) -> Result<Option<Vec<u8>>, String> {
    let response = client.get(url).send().await.map_err(describe)?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !status.is_success() {
        return Err(format!("HTTP {status}"));
    }
    let bytes = response.bytes().await.map_err(describe)?;
    Ok(Some(bytes.to_vec()))
}

fn describe(error: reqwest::Error) -> String {
    crate::plumbing::error_text::request_causes(&error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_files_list_assets_by_name() {
        let text = "aaa  ext-linux-amd64.zip\nbbb *ext-darwin-arm64.zip\n";
        assert_eq!(
            checksum_of(text, "ext-linux-amd64.zip", false).as_deref(),
            Some("aaa")
        );
        assert_eq!(
            checksum_of(text, "ext-darwin-arm64.zip", false).as_deref(),
            Some("bbb")
        );
        assert_eq!(checksum_of(text, "ext-windows-amd64.zip", false), None);
        assert_eq!(
            checksum_of("ccc  x.zip\n", "", true).as_deref(),
            Some("ccc")
        );
    }

    #[test]
    fn urls_follow_github_or_the_download_base() {
        let package = GitHubPackage {
            owner: "o".into(),
            repo: "r".into(),
            version: None,
        };
        let github = Urls::of(&package, None);
        assert_eq!(github.download, "https://github.com/o/r/releases/download");
        assert_eq!(
            github.latest,
            "https://api.github.com/repos/o/r/releases/latest"
        );
        let local = Urls::of(&package, Some("http://127.0.0.1:9/"));
        assert_eq!(local.download, "http://127.0.0.1:9/o/r/releases/download");
        assert_eq!(
            local.latest,
            "http://127.0.0.1:9/api/v3/repos/o/r/releases/latest"
        );
    }

    /// Without the feature a release package is refused, with a message naming it; with
    /// it, this one is fetched from a port where nothing listens and the error says so.
    #[tokio::test]
    async fn a_release_needs_the_extension_releases_feature() {
        assert_eq!(releases_built_in(false), Err(WITHOUT_RELEASES.to_owned()));
        assert!(WITHOUT_RELEASES.contains("`extension-releases`"));
        assert_eq!(releases_built_in(true), Ok(()));
        let package = GitHubPackage {
            owner: "mcpeval-test".into(),
            repo: "never-released".into(),
            version: Some("v0.0.0-none".into()),
        };
        let root = tempfile::tempdir().unwrap();
        let error = release_binary(&package, Some("http://127.0.0.1:9"), root.path())
            .await
            .unwrap_err();
        if cfg!(feature = "extension-releases") {
            assert!(!error.contains("extension-releases"), "{error}");
        } else {
            assert_eq!(error, WITHOUT_RELEASES);
        }
    }

    #[test]
    fn platforms_have_go_names() {
        let (os, arch) = go_platform();
        assert!(["linux", "darwin", "windows"].contains(&os) || !os.is_empty());
        assert!(!["x86_64", "aarch64"].contains(&arch));
    }
}
