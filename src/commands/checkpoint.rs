//! Checkpoint files of long runs (`train --checkpoint`, `platform train --checkpoint`): read
//! when they exist, written through a temporary name so a kill leaves the old state or the
//! new one, never half of one.

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::Path;

/// The state saved at `path`, if there is one; `what` names the kind of checkpoint in the
/// error for a file that is not one. Without a file, the path's directory is made and an
/// existing directory in its place refused.
pub fn load<T: DeserializeOwned>(path: &Path, what: &str) -> anyhow::Result<Option<T>> {
    if !path.exists() {
        super::train::output_path(path, false)?;
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the checkpoint {}", path.display()))?;
    let state = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a {what} checkpoint (truncated or another file)",
            path.display()
        )
    })?;
    Ok(Some(state))
}

/// Write `state` to `path` atomically.
pub fn save<T: Serialize>(path: &Path, state: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string(state).context("the state does not serialize")?;
    edgelearn_sim::files::write_atomic(path, text)
        .with_context(|| format!("cannot write the checkpoint {}", path.display()))
}
