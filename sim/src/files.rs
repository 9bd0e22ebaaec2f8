//! How edgelearn writes what others may read at the same time: content keys of cached
//! builds, files written through a temporary name, build directories published by one
//! rename, under a lock per content key. Every cache and every output file of the kit goes
//! through these (docs/decisions.md
//! D-VERILATOR, docs/regress.md).

use sha2::{Digest, Sha256};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static TMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// The SHA-256 (hex) of `parts`, each prefixed by its length, so `["ab", "c"]` and
/// `["a", "bc"]` differ: the content key of a cached build.
pub fn content_key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex::encode(h.finalize())
}

/// A name next to `path` that no other process or thread uses: `.NAME.PID-N.tmp`.
pub fn temp_sibling(path: &Path) -> PathBuf {
    let n = TMP_COUNTER.fetch_add(1, Ordering::SeqCst);
    let name = path
        .file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Write `contents` to `path` through a temporary sibling and one rename, so a reader sees
/// the old file or the new one, never half of it.
pub fn write_atomic(path: &Path, contents: impl AsRef<[u8]>) -> io::Result<()> {
    let tmp = temp_sibling(path);
    let r = std::fs::write(&tmp, contents).and_then(|_| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

/// Publish the finished directory (or file) `tmp` as `dest` with one rename. If `dest`
/// appeared meanwhile (another process built the same content key), `tmp` is removed and
/// theirs is used; returns whether ours was published.
pub fn publish(tmp: &Path, dest: &Path) -> bool {
    if std::fs::rename(tmp, dest).is_ok() {
        return true;
    }
    if tmp.is_dir() {
        let _ = std::fs::remove_dir_all(tmp);
    } else {
        let _ = std::fs::remove_file(tmp);
    }
    false
}

/// An exclusive advisory lock on `path` (created if missing), held until the returned file
/// is dropped; blocks while another process holds it. Builders of one content key take it,
/// then look for the published result again, so parallel jobs build a thing once.
pub fn lock(path: &Path) -> io::Result<std::fs::File> {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor this function owns; blocks until the lock is free.
        let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_key_separates_parts() {
        assert_ne!(content_key(&["ab", "c"]), content_key(&["a", "bc"]));
        assert_eq!(content_key(&["x"]), content_key(&["x"]));
        assert_eq!(content_key(&[]).len(), 64);
    }

    #[test]
    fn write_atomic_replaces_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("el-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.json");
        write_atomic(&f, "one").unwrap();
        write_atomic(&f, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A directory that does not exist is an error, not a panic, and leaves nothing.
        assert!(write_atomic(&dir.join("no/such/file"), "x").is_err());
        let t = dir.join("build");
        std::fs::create_dir_all(&t).unwrap();
        assert!(publish(&t, &dir.join("published")));
        let t2 = dir.join("build2");
        std::fs::create_dir_all(t2.join("x")).unwrap();
        std::fs::write(dir.join("published/keep"), "").unwrap();
        assert!(!publish(&t2, &dir.join("published")));
        assert!(!t2.exists() && dir.join("published/keep").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_second_builder_waits_for_the_lock() {
        let path = std::env::temp_dir().join(format!("el-lock-{}", std::process::id()));
        let held = lock(&path).unwrap();
        let p = path.clone();
        let t = std::time::Instant::now();
        let waiter = std::thread::spawn(move || {
            let _l = lock(&p).unwrap();
            t.elapsed()
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(held);
        let waited = waiter.join().unwrap();
        assert!(
            waited >= std::time::Duration::from_millis(250),
            "{waited:?}"
        );
        let _ = std::fs::remove_file(&path);
    }
}
