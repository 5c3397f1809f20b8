//! What the player remembers between runs, in the state directory: hints shown once, the
//! window's last size.

/// True the first time it is asked about `hint` on this machine (for this user); it is then
/// marked as shown. Where nothing can be remembered (no home, a read-only disk), every time.
pub fn first_time(hint: &str) -> bool {
    let Some(dir) = super::state_dir() else { return true };
    let marker = dir.join(format!("{hint}-shown"));
    if marker.exists() {
        return false;
    }
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| super::write_small(&marker, "")) {
        log::info!(
            "cannot remember that the {hint} hint was shown ({}): {e}",
            marker.display()
        );
    }
    true
}

/// The size the window had when the player last quit (physical pixels), if it is known.
pub fn window_size() -> Option<(u32, u32)> {
    let text = super::read_small(&super::state_dir()?.join("window-size")).ok()?;
    let (w, h) = text.trim().split_once('x')?;
    let size = (w.parse().ok()?, h.parse().ok()?);
    (size.0 >= 64 && size.1 >= 64 && size.0 <= 16384 && size.1 <= 16384).then_some(size)
}

/// Keeps the window's size for the next start.
pub fn remember_window_size((width, height): (u32, u32)) {
    let Some(dir) = super::state_dir() else { return };
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| super::write_small(&dir.join("window-size"), &format!("{width}x{height}\n")));
    if let Err(e) = written {
        log::info!("cannot keep the window's size in '{}': {e}", dir.display());
    }
}
