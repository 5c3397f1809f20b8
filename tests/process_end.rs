//! A headless command's end (`process::end`): its output whole and its status given as soon as
//! it is out, while a holder of its own lets go of the devices' memory and exits by itself.
//! A test binary of its own: the test takes up the processes orphaned under it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Processes ended under this one that were not its own children, with their exit statuses,
/// waited for until `wanted` are in or `within` has passed.
fn orphans_ended(own: i32, wanted: usize, within: Duration) -> Vec<(i32, i32)> {
    let until = Instant::now() + within;
    let mut ended = Vec::new();
    while ended.len() < wanted && Instant::now() < until {
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        match pid {
            0 => std::thread::sleep(Duration::from_millis(10)),
            p if p > 0 && p != own => ended.push((p, status)),
            p if p > 0 => {}
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    ended
}

#[test]
fn a_command_ends_with_its_output_while_a_holder_lets_go_of_its_devices() {
    // Orphans come to this process, not to the machine's first.
    // SAFETY: prctl with its documented arguments.
    assert_eq!(unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }, 0);
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/media/sample-540p.mp4");
    let child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["hist", sample, "--frames", "0..3"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("histoplay runs");
    let own = child.id() as i32;
    // Read to the end: neither the command nor its holder keeps the output open.
    let output = child.wait_with_output().unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{err}");
    let frames: Vec<&str> = out.lines().collect();
    assert_eq!(frames.len(), 3, "{out}");
    for (k, line) in frames.iter().enumerate() {
        assert!(line.starts_with(&format!("{{\"frame\":{k},")), "{line}");
    }
    // The holder: one process, gone by itself once the command was, exit status 0.
    let ended = orphans_ended(own, 1, Duration::from_secs(60));
    assert_eq!(ended.len(), 1, "the holder did not end: {ended:?}");
    let (_, holder) = ended[0];
    assert!(libc::WIFEXITED(holder) && libc::WEXITSTATUS(holder) == 0, "{holder:#x}");
    // And nothing else was left behind.
    assert!(orphans_ended(own, 1, Duration::from_millis(300)).is_empty());
}
