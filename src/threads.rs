//! Where a stretch's CPU time went, thread by thread: each thread of the process read from
//! `/proc/self/task` before and after, grouped by name (FFmpeg's frame threads, histoplay's
//! decode and upload threads, the thread that records the GPU work). Linux only; elsewhere
//! nothing is counted.

use std::collections::BTreeMap;

/// Each thread's name and CPU time (user, system: clock ticks) at one moment.
pub struct ThreadTimes(BTreeMap<u32, (String, [u64; 2])>);

impl ThreadTimes {
    /// No thread: what `since` counts every live thread's whole time from.
    pub fn none() -> Self {
        Self(BTreeMap::new())
    }
}

/// One name's threads over a stretch: how many ran, and their CPU seconds together, of which
/// in the kernel (page faults, system calls).
#[derive(Debug, PartialEq)]
pub struct NamedTime {
    pub name: String,
    pub threads: usize,
    pub seconds: f64,
    pub system: f64,
}

impl ThreadTimes {
    pub fn now() -> Self {
        let mut times = BTreeMap::new();
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return Self(times);
        };
        for task in tasks.flatten() {
            let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
                continue;
            };
            if let Some(entry) = std::fs::read_to_string(task.path().join("stat"))
                .ok()
                .and_then(|stat| parse_stat(&stat))
            {
                times.insert(tid, entry);
            }
        }
        Self(times)
    }

    /// The CPU time each name's threads took since `before`, most first; a thread started
    /// meanwhile counts from zero.
    pub fn since(&self, before: &Self) -> Vec<NamedTime> {
        let per_second = clock_ticks_per_second();
        let mut named: BTreeMap<String, (usize, [u64; 2])> = BTreeMap::new();
        for (tid, (name, [user, system])) in &self.0 {
            let [user_before, system_before] = before.0.get(tid).map_or([0, 0], |(_, t)| *t);
            let spent = [user.saturating_sub(user_before), system.saturating_sub(system_before)];
            if spent == [0, 0] {
                continue;
            }
            let entry = named.entry(family(name)).or_default();
            entry.0 += 1;
            entry.1[0] += spent[0];
            entry.1[1] += spent[1];
        }
        let mut list: Vec<NamedTime> = named
            .into_iter()
            .map(|(name, (threads, [user, system]))| NamedTime {
                name,
                threads,
                seconds: (user + system) as f64 / per_second,
                system: system as f64 / per_second,
            })
            .collect();
        list.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        list
    }
}

/// A thread's name and its user and system ticks from its `stat` line (the name in
/// parentheses may hold spaces and parentheses itself: the fields after it follow the last
/// `)`).
fn parse_stat(stat: &str) -> Option<(String, [u64; 2])> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    // After the name: state (field 3) ... utime (14), stime (15).
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some((name, [user, system]))
}

/// Threads numbered alike go together: FFmpeg's `av:h264:df3` with the other frame threads.
fn family(name: &str) -> String {
    name.trim_end_matches(|c: char| c.is_ascii_digit()).to_string()
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

/// `name ×N S s (K in the kernel)` for each, most first, after the whole and the cores it kept
/// busy over `wall` seconds.
pub fn describe(times: &[NamedTime], wall: f64) -> String {
    // (A sum of no floats is -0.)
    let total = times.iter().map(|t| t.seconds).fold(0.0, |sum, t| sum + t);
    let each: Vec<String> = times
        .iter()
        .filter(|t| t.seconds >= 0.01)
        .map(|t| {
            let count = match t.threads {
                1 => String::new(),
                n => format!(" ×{n}"),
            };
            format!("{}{count} {:.2} s ({:.2} in the kernel)", t.name, t.seconds, t.system)
        })
        .collect();
    let each = match each.is_empty() {
        true => "no thread took 10 ms".to_string(),
        false => each.join(", "),
    };
    format!(
        "{total:.2} CPU s over {wall:.2} s ({:.1} cores): {each}",
        total / wall.max(1e-9)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threads_name_and_ticks_come_from_its_stat_line() {
        let stat = "4242 (av:h264:df 3) S 1 2 3 4 5 6 7 8 9 10 150 25 0 0 20 0 1 0 100 0 0";
        assert_eq!(parse_stat(stat), Some(("av:h264:df 3".to_string(), [150, 25])));
        // A name with a parenthesis of its own.
        let odd = "7 (a) b) R 1 2 3 4 5 6 7 8 9 10 4 6 0 0 20 0 1 0 100 0 0";
        assert_eq!(parse_stat(odd), Some(("a) b".to_string(), [4, 6])));
        assert_eq!(parse_stat("7 (short) R 1 2"), None);
    }

    #[test]
    fn numbered_threads_are_one_family_and_the_busiest_come_first() {
        let at = |entries: &[(u32, &str, u64)]| {
            ThreadTimes(
                entries
                    .iter()
                    .map(|&(t, n, k)| (t, (n.to_string(), [k, k / 10])))
                    .collect(),
            )
        };
        let before = at(&[(1, "main", 10), (2, "av:h264:df0", 5), (3, "av:h264:df1", 5)]);
        let after = at(&[
            (1, "main", 30),
            (2, "av:h264:df0", 105),
            (3, "av:h264:df1", 205),
            (4, "histoplay upload", 70),
        ]);
        let ticks = clock_ticks_per_second();
        let since = after.since(&before);
        let names: Vec<(&str, usize)> = since.iter().map(|t| (t.name.as_str(), t.threads)).collect();
        assert_eq!(names, [("av:h264:df", 2), ("histoplay upload", 1), ("main", 1)]);
        // User 100 + 200, system 10 + 20.
        assert_eq!(since[0].seconds, 330.0 / ticks);
        assert_eq!(since[0].system, 30.0 / ticks);
        assert_eq!(since[1].seconds, 77.0 / ticks);
        assert_eq!(since[2].seconds, 22.0 / ticks);
    }
}
