//! Where a report tells of the runs beyond its limits as each ends: stderr (a live input's
//! alerts) and `--alert-log`, a JSON line each.

use super::limits::{OnClose, Run};
use std::io::Write;

/// Where the runs beyond the limits are told of as they end.
#[derive(Clone, Debug, Default)]
pub struct Alerts {
    pub stderr: bool,
    pub log: Option<std::path::PathBuf>,
}

impl Alerts {
    /// What `LimitWatch` calls as each run ends; None when nothing is told.
    pub fn teller(&self) -> std::io::Result<Option<OnClose>> {
        let mut log = match &self.log {
            Some(path) => {
                let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
                let file = file.map_err(|e| {
                    std::io::Error::new(e.kind(), format!("cannot open the alert log '{}': {e}", path.display()))
                })?;
                Some((path.clone(), file))
            }
            None => None,
        };
        if log.is_none() && !self.stderr {
            return Ok(None);
        }
        let stderr = self.stderr;
        Ok(Some(Box::new(move |run: &Run| {
            if stderr {
                eprintln!("{run}");
            }
            if let Some((path, file)) = &mut log {
                // One write a line, so a reader never sees half of one.
                if let Err(e) = file.write_all(format!("{}\n", run.alert_json()).as_bytes()) {
                    log::warn!("{}: cannot write the alert: {e}", path.display());
                }
            }
        })))
    }
}
