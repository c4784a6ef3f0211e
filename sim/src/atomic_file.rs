//! A file written whole or not at all: what the report and a timeline
//! leave behind when a run is stopped half-way.

use std::path::Path;

/// Writes `text` to `path` through a temporary file beside it and a
/// rename, so that a reader (or a run stopped half-way) never sees half a
/// file.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}
