//! What histoplay is and runs on: its version, and the versions of the libraries that make its
//! pictures (FFmpeg's, as loaded at run time; wgpu, winit, egui and cpal, as built in), for
//! `histoplay --version --verbose` and the stats overlay.

use ffmpeg_next as ffmpeg;
use std::sync::OnceLock;

/// histoplay's own version (Cargo.toml's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Rust libraries built in, with their versions (from Cargo.lock, by build.rs).
pub const BUILT_WITH: [(&str, &str); 5] = [
    ("wgpu", env!("HISTOPLAY_WGPU_VERSION")),
    ("winit", env!("HISTOPLAY_WINIT_VERSION")),
    ("egui", env!("HISTOPLAY_EGUI_VERSION")),
    ("cpal", env!("HISTOPLAY_CPAL_VERSION")),
    ("ffmpeg-next", env!("HISTOPLAY_FFMPEG_NEXT_VERSION")),
];

/// `major.minor.micro` of a library version FFmpeg packs into one integer.
fn unpack(v: u32) -> String {
    format!("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
}

/// FFmpeg's release as the loaded libavutil names it (`5.1.8-0+deb12u1`).
pub fn ffmpeg_release() -> String {
    // SAFETY: av_version_info returns a static NUL-terminated string.
    let info = unsafe { std::ffi::CStr::from_ptr(ffmpeg::ffi::av_version_info()) };
    info.to_string_lossy().into_owned()
}

/// The FFmpeg libraries loaded, with their versions.
pub fn ffmpeg_libraries() -> Vec<(&'static str, String)> {
    // SAFETY: the version functions take nothing and return a number.
    let versions = unsafe {
        [
            ("libavcodec", ffmpeg::ffi::avcodec_version()),
            ("libavformat", ffmpeg::ffi::avformat_version()),
            ("libavutil", ffmpeg::ffi::avutil_version()),
            ("libswscale", ffmpeg::ffi::swscale_version()),
            ("libswresample", ffmpeg::ffi::swresample_version()),
        ]
    };
    versions.into_iter().map(|(name, v)| (name, unpack(v))).collect()
}

/// `histoplay --version --verbose`: the version, then FFmpeg's and the built-in libraries'.
pub fn verbose() -> String {
    let libraries: Vec<String> = ffmpeg_libraries()
        .into_iter()
        .map(|(name, v)| format!("{name} {v}"))
        .collect();
    let built: Vec<String> = BUILT_WITH.iter().map(|(name, v)| format!("{name} {v}")).collect();
    format!(
        "histoplay {VERSION}\nFFmpeg {} ({})\nbuilt with {}\n",
        ffmpeg_release(),
        libraries.join(", "),
        built.join(", ")
    )
}

/// One line for the stats overlay: `histoplay 0.1.0, FFmpeg 5.1.8, wgpu 30.0.1`.
pub fn summary() -> &'static str {
    static SUMMARY: OnceLock<String> = OnceLock::new();
    SUMMARY.get_or_init(|| {
        format!(
            "histoplay {VERSION}, FFmpeg {}, wgpu {}",
            ffmpeg_release(),
            BUILT_WITH[0].1
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn versions_are_numbers() {
        assert_eq!(super::unpack((59 << 16) | (37 << 8) | 100), "59.37.100");
        for (name, version) in super::BUILT_WITH {
            assert!(version.split('.').all(|p| p.parse::<u64>().is_ok()), "{name} {version}");
        }
        let libraries = super::ffmpeg_libraries();
        assert!(libraries.iter().all(|(_, v)| !v.starts_with("0.")), "{libraries:?}");
        assert!(super::summary().starts_with(&format!("histoplay {}, FFmpeg ", super::VERSION)));
    }
}
