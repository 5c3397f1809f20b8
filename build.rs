//! Records the versions of the libraries histoplay is built with, from Cargo.lock, for
//! `histoplay --version --verbose` and the stats overlay (`src/version.rs`).

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for (krate, var) in [
        ("wgpu", "WGPU"),
        ("winit", "WINIT"),
        ("egui", "EGUI"),
        ("cpal", "CPAL"),
        ("ffmpeg-next", "FFMPEG_NEXT"),
    ] {
        let version = locked_version(&lock, krate).unwrap_or_else(|| "unknown".to_string());
        println!("cargo:rustc-env=HISTOPLAY_{var}_VERSION={version}");
    }
}

/// The version of `krate` in a Cargo.lock: the `version` line after its `name` line (the
/// highest, where several are locked).
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let name = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    let mut found: Vec<String> = Vec::new();
    while let Some(line) = lines.next() {
        if line.trim() == name {
            if let Some(version) = lines.next().and_then(|l| l.trim().strip_prefix("version = \"")) {
                found.push(version.trim_end_matches('"').to_string());
            }
        }
    }
    found.into_iter().max_by_key(|v| {
        v.split(['.', '-', '+'])
            .map(|p| p.parse::<u64>().unwrap_or(0))
            .collect::<Vec<_>>()
    })
}
