//! mcpchecker's cache of extension release assets, shared with it: per repository,
//! `<user cache dir>/.mcpchecker/<owner>-<repo>/binaries/<repo>-<version>-<os>-<arch>.zip`
//! and an index, `binaries-index.json`, with each zip's SHA-256. A zip is reused when its
//! checksum still matches the index.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Why a release package fails in a build without the `extension-releases` feature.
pub(super) const WITHOUT_RELEASES: &str = "this build of mcpeval cannot fetch extension \
    releases: it was built without the cargo feature `extension-releases` (a default \
    feature; `default-features = false` leaves it out). Add it to the dependency's \
    `features`, or give the extension's `package` as a path to its binary";

/// One entry of `binaries-index.json`, as mcpchecker writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct IndexEntry {
    version: String,
    platform: String,
    zip_path: String,
    sha256: String,
    downloaded_at: String,
}

/// The cache directory of one repository's releases.
#[derive(Debug, Clone)]
pub struct ReleaseCache {
    /// `<user cache dir>/.mcpchecker/<owner>-<repo>`.
    pub dir: PathBuf,
    repo: String,
}

impl ReleaseCache {
    /// The cache of `owner/repo` where mcpchecker keeps it.
    pub fn of(owner: &str, repo: &str) -> Result<Self, String> {
        let root = user_cache_dir().ok_or(
            "the user cache directory is unknown (neither XDG_CACHE_HOME nor HOME is set)",
        )?;
        Ok(ReleaseCache {
            dir: root.join(".mcpchecker").join(format!("{owner}-{repo}")),
            repo: repo.to_owned(),
        })
    }

    /// Where the zip of `version` for `platform` (`linux-amd64`) is kept.
    pub fn zip_path(&self, version: &str, platform: &str) -> PathBuf {
        self.dir
            .join("binaries")
            .join(format!("{}-{version}-{platform}.zip", self.repo))
    }

    fn index_path(&self) -> PathBuf {
        self.dir.join("binaries-index.json")
    }

    fn entries(&self) -> Vec<IndexEntry> {
        std::fs::read_to_string(self.index_path())
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// The cached zip of `version` for `platform` whose checksum matches the index; a zip
    /// put at [`Self::zip_path`] by hand (not in the index) is taken and indexed.
    pub fn cached(&self, version: &str, platform: &str) -> Option<PathBuf> {
        let entry = self
            .entries()
            .into_iter()
            .find(|e| e.version == version && e.platform == platform);
        match entry {
            Some(entry) => {
                let bytes = std::fs::read(&entry.zip_path).ok()?;
                (sha256_hex(&bytes) == entry.sha256).then(|| PathBuf::from(entry.zip_path))
            }
            None => {
                let path = self.zip_path(version, platform);
                let bytes = std::fs::read(&path).ok()?;
                self.add(version, platform, &bytes).ok()
            }
        }
    }

    /// The most recently downloaded version cached for `platform`.
    pub fn latest_cached(&self, platform: &str) -> Option<String> {
        self.entries()
            .into_iter()
            .filter(|e| e.platform == platform && Path::new(&e.zip_path).is_file())
            .max_by(|a, b| a.downloaded_at.cmp(&b.downloaded_at))
            .map(|e| e.version)
    }

    /// Stores a verified zip and indexes it; its path.
    pub fn add(&self, version: &str, platform: &str, zip: &[u8]) -> Result<PathBuf, String> {
        let path = self.zip_path(version, platform);
        write_atomically(&path, zip)?;
        let mut entries = self.entries();
        entries.retain(|e| !(e.version == version && e.platform == platform));
        entries.push(IndexEntry {
            version: version.to_owned(),
            platform: platform.to_owned(),
            zip_path: path.display().to_string(),
            sha256: sha256_hex(zip),
            downloaded_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string(),
        });
        let text = serde_json::to_string_pretty(&entries).map_err(|e| e.to_string())?;
        write_atomically(&self.index_path(), text.as_bytes())?;
        Ok(path)
    }
}

/// The user's cache directory as Go's `os.UserCacheDir` finds it (where mcpchecker keeps
/// its cache): `$XDG_CACHE_HOME`, else `~/.cache`; `~/Library/Caches` on macOS.
pub fn user_cache_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    if cfg!(target_os = "macos") {
        return home.map(|h| h.join("Library/Caches"));
    }
    match std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => Some(dir),
        _ => home.map(|h| h.join(".cache")),
    }
}

/// The SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Extracts the file `name` of the zip at `zip` to `into/name`, executable; its path.
#[cfg(feature = "extension-releases")]
pub fn extract_binary(zip: &Path, name: &str, into: &Path) -> Result<PathBuf, String> {
    use std::io::Read;
    let file =
        std::fs::File::open(zip).map_err(|e| format!("cannot open {}: {e}", zip.display()))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| format!("{} is not a zip: {e}", zip.display()))?;
    let mut entry = archive.by_name(name).map_err(|_| {
        format!(
            "the release archive {} has no file `{name}` (the binary of this platform)",
            zip.display()
        )
    })?;
    let mut bytes = Vec::new();
    entry
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot extract `{name}` from {}: {e}", zip.display()))?;
    let target = into.join(name);
    write_atomically(&target, &bytes)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", target.display()))?;
    Ok(target)
}

/// Without the `extension-releases` feature there is no zip reader:
/// [`super::release::release_binary`] refuses a release before it gets here.
#[cfg(not(feature = "extension-releases"))]
pub fn extract_binary(_zip: &Path, _name: &str, _into: &Path) -> Result<PathBuf, String> {
    Err(WITHOUT_RELEASES.to_owned())
}

/// Writes through a temporary file and a rename, so that a reader (another test process)
/// never sees half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, bytes).map_err(fail)?;
    std::fs::rename(&temporary, path).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(dir: &Path) -> ReleaseCache {
        ReleaseCache {
            dir: dir.join(".mcpchecker/o-ext"),
            repo: "ext".into(),
        }
    }

    #[test]
    fn an_added_zip_is_found_again_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let path = cache.add("v1", "linux-amd64", b"zip bytes").unwrap();
        assert!(path.ends_with(".mcpchecker/o-ext/binaries/ext-v1-linux-amd64.zip"));
        assert_eq!(cache.cached("v1", "linux-amd64"), Some(path.clone()));
        assert_eq!(cache.cached("v2", "linux-amd64"), None);
        assert_eq!(cache.latest_cached("linux-amd64").as_deref(), Some("v1"));
        std::fs::write(&path, b"tampered").unwrap();
        assert_eq!(cache.cached("v1", "linux-amd64"), None);
    }

    #[test]
    fn the_index_reads_as_mcpchecker_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let zip = cache.zip_path("v0.0.2", "linux-amd64");
        std::fs::create_dir_all(zip.parent().unwrap()).unwrap();
        std::fs::write(&zip, b"abc").unwrap();
        let index = format!(
            r#"[
  {{
    "version": "v0.0.2",
    "platform": "linux-amd64",
    "zip_path": "{}",
    "sha256": "{}",
    "downloaded_at": "2026-01-15T10:30:00+01:00"
  }}
]"#,
            zip.display(),
            sha256_hex(b"abc")
        );
        std::fs::write(cache.index_path(), index).unwrap();
        assert_eq!(cache.cached("v0.0.2", "linux-amd64"), Some(zip));
    }

    #[test]
    fn a_zip_put_in_place_by_hand_is_taken_and_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache(dir.path());
        let zip = cache.zip_path("v3", "linux-arm64");
        std::fs::create_dir_all(zip.parent().unwrap()).unwrap();
        std::fs::write(&zip, b"by hand").unwrap();
        assert_eq!(cache.cached("v3", "linux-arm64"), Some(zip));
        assert_eq!(cache.entries().len(), 1);
    }

    #[test]
    fn sha256_is_lower_case_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
