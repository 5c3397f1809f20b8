//! What the player remembers between runs, in the state directory: hints shown once.

/// True the first time it is asked about `hint` on this machine (for this user); it is then
/// marked as shown. Where nothing can be remembered (no home, a read-only disk), every time.
pub fn first_time(hint: &str) -> bool {
    let Some(dir) = super::state_dir() else { return true };
    let marker = dir.join(format!("{hint}-shown"));
    if marker.exists() {
        return false;
    }
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&marker, b"")) {
        log::info!(
            "cannot remember that the {hint} hint was shown ({}): {e}",
            marker.display()
        );
    }
    true
}
