//! Finding the sound output: whether opening one could work at all (a sound card, a sound
//! server's socket or address, an ALSA configuration), which device to open (the default, or
//! one named with `--audio-device`), and ALSA's own complaints kept off stderr.

use std::path::{Path, PathBuf};

/// What the environment says about sound, gathered once (`Environment::read`) so the decision
/// is a pure function of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// `/proc/asound/cards` lists a card.
    pub card: bool,
    /// `PULSE_SERVER` is set.
    pub pulse_server: bool,
    /// A PulseAudio or PipeWire socket exists where clients look for one.
    pub server_socket: bool,
    /// An ALSA configuration of the system's or the user's: `/etc/asound.conf`, `~/.asoundrc`,
    /// or a configuration directory with something in it (where ALSA's pulse or pipewire plugin
    /// installs itself).
    pub alsa_config: bool,
}

impl Environment {
    pub fn read() -> Self {
        let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let mut runtime_dirs: Vec<PathBuf> = var("XDG_RUNTIME_DIR").into_iter().collect();
        // Without XDG_RUNTIME_DIR (a root shell, sudo, a service) the user's own runtime dir
        // still has the server's socket.
        #[cfg(unix)]
        // SAFETY: getuid has no preconditions.
        runtime_dirs.push(PathBuf::from(format!("/run/user/{}", unsafe { libc::getuid() })));
        let sockets = runtime_dirs
            .iter()
            .flat_map(|dir| [dir.join("pulse/native"), dir.join("pipewire-0")])
            .chain([
                PathBuf::from("/run/pulse/native"),
                PathBuf::from("/var/run/pulse/native"),
            ]);
        let non_empty_dir = |dir: &Path| std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
        Self {
            card: !cards.trim().is_empty() && !cards.contains("no soundcards"),
            pulse_server: var("PULSE_SERVER").is_some(),
            server_socket: sockets.into_iter().any(|s| s.exists()),
            alsa_config: Path::new("/etc/asound.conf").exists()
                || var("HOME").is_some_and(|home| home.join(".asoundrc").exists())
                || var("ALSA_CONFIG_PATH").is_some()
                || non_empty_dir(Path::new("/etc/alsa/conf.d")),
        }
    }

    /// Whether opening an output could work. Where nothing at all is there, ALSA would only
    /// print its complaints about a missing card.
    pub fn output_possible(&self) -> bool {
        self.card || self.pulse_server || self.server_socket || self.alsa_config
    }

    /// In words, for the log.
    pub fn describe(&self) -> String {
        let found: Vec<&str> = [
            (self.card, "a sound card"),
            (self.pulse_server, "PULSE_SERVER"),
            (self.server_socket, "a sound server's socket"),
            (self.alsa_config, "an ALSA configuration"),
        ]
        .iter()
        .filter(|(present, _)| *present)
        .map(|(_, what)| *what)
        .collect();
        if found.is_empty() {
            "no sound card, sound server or ALSA configuration".to_string()
        } else {
            found.join(", ")
        }
    }
}

/// Which output device `wanted` (`--audio-device`) names among `available`: the exact name,
/// else the only one that contains it (case-insensitive). Err says what there is.
pub fn pick<'a>(wanted: &str, available: &'a [String]) -> Result<&'a String, String> {
    if let Some(exact) = available.iter().find(|name| name.as_str() == wanted) {
        return Ok(exact);
    }
    let needle = wanted.to_lowercase();
    let matching: Vec<&String> = available
        .iter()
        .filter(|name| name.to_lowercase().contains(&needle))
        .collect();
    match matching[..] {
        [one] => Ok(one),
        [] => Err(format!(
            "no sound output called '{wanted}'; there are: {}",
            list(available)
        )),
        _ => Err(format!(
            "'{wanted}' names several sound outputs: {}",
            list(&matching.into_iter().cloned().collect::<Vec<_>>())
        )),
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Sends ALSA's error messages to histoplay's log (debug level) instead of stderr, where they
/// would arrive as several lines about cards and plugins whenever a device can't be opened.
#[cfg(target_os = "linux")]
pub fn quiet_alsa() {
    use std::ffi::{c_char, c_int, CStr};
    // ALSA calls its handler as `void (*)(const char *file, int line, const char *function,
    // int err, const char *fmt, ...)`. This one reads only the fixed arguments, which the C
    // calling convention passes the same way to a function that takes no variadic ones.
    unsafe extern "C" fn to_log(
        file: *const c_char,
        line: c_int,
        function: *const c_char,
        err: c_int,
        _: *const c_char,
    ) {
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: ALSA passes NUL-terminated strings (or null, handled above).
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        log::debug!("ALSA {}:{line} {}: error {err}", text(file), text(function));
    }
    #[link(name = "asound")]
    extern "C" {
        fn snd_lib_error_set_handler(
            handler: Option<unsafe extern "C" fn(*const c_char, c_int, *const c_char, c_int, *const c_char)>,
        ) -> c_int;
    }
    // SAFETY: installs a handler that only reads its fixed arguments; ALSA keeps the pointer.
    unsafe {
        snd_lib_error_set_handler(Some(to_log));
    }
}

#[cfg(not(target_os = "linux"))]
pub fn quiet_alsa() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_tried_wherever_sound_may_be() {
        let nothing = Environment::default();
        assert!(!nothing.output_possible());
        assert_eq!(nothing.describe(), "no sound card, sound server or ALSA configuration");
        for env in [
            Environment {
                card: true,
                ..nothing.clone()
            },
            // A root shell without XDG_RUNTIME_DIR, told where the server is.
            Environment {
                pulse_server: true,
                ..nothing.clone()
            },
            Environment {
                server_socket: true,
                ..nothing.clone()
            },
            // ALSA's pulse plugin configured, whether or not a server runs now.
            Environment {
                alsa_config: true,
                ..nothing.clone()
            },
        ] {
            assert!(env.output_possible(), "{env:?}");
        }
        let both = Environment {
            pulse_server: true,
            alsa_config: true,
            ..nothing
        };
        assert_eq!(both.describe(), "PULSE_SERVER, an ALSA configuration");
    }

    #[test]
    fn devices_are_picked_by_name_or_unique_part_of_it() {
        let names: Vec<String> = ["default", "pulse", "hw:CARD=PCH,DEV=0", "hdmi:CARD=PCH,DEV=0"]
            .map(String::from)
            .to_vec();
        assert_eq!(pick("pulse", &names), Ok(&names[1]));
        assert_eq!(pick("HDMI", &names), Ok(&names[3]));
        let several = pick("PCH", &names).unwrap_err();
        assert!(
            several.contains("several") && several.contains("hw:CARD=PCH"),
            "{several}"
        );
        let none = pick("usb", &names).unwrap_err();
        assert!(
            none.contains("no sound output called 'usb'") && none.contains("default, pulse"),
            "{none}"
        );
        assert!(pick("x", &[]).unwrap_err().ends_with("there are: none"));
    }
}
