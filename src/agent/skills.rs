//! Mounting an eval's skills: the contents of each `config.skills.sources` directory copied
//! into the agent's working directory at its skills' `mountPath`, as mcpchecker does.

use std::io;
use std::path::Path;

/// Copies the contents of every directory of `sources` into `work_dir/mount_path`
/// (created; later sources win on equal names). `mount_path` is relative (checked at load).
pub fn mount_skills(
    work_dir: &Path,
    mount_path: &str,
    sources: &[impl AsRef<Path>],
) -> io::Result<()> {
    if sources.is_empty() {
        return Ok(());
    }
    let target = work_dir.join(mount_path);
    std::fs::create_dir_all(&target)?;
    for source in sources {
        copy_dir(source.as_ref(), &target)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", source.as_ref().display())))?;
    }
    Ok(())
}

/// Copies the contents of `from` into `to`, recursively; symbolic links are followed.
fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if std::fs::metadata(&source)?.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_dir(&source, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}
