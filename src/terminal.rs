//! Text for people: messages that quote what a file holds, made safe to print, and counts
//! said in words.

/// `n` and `noun`, plural but for one: `1 run`, `3 runs`, `0 runs` (`noun` a regular one).
pub fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// A frame rate to three places, its trailing zeros left out: `25 fps`, `29.97 fps`.
pub fn fps(rate: f64) -> String {
    let text = format!("{rate:.3}");
    format!("{} fps", text.trim_end_matches('0').trim_end_matches('.'))
}

/// `text` as one line a terminal shows as it is: line breaks and tabs made spaces, other
/// control characters escaped (a file's bytes quoted in a message can't move the cursor, clear
/// the screen or retitle the terminal).
pub fn one_line(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    for c in text.trim_end().chars() {
        match c {
            '\n' | '\r' | '\t' => {
                if !line.ends_with(' ') {
                    line.push(' ');
                }
            }
            c if c.is_control() => line.extend(c.escape_default()),
            c => line.push(c),
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{counted, one_line};

    #[test]
    fn counts_are_plural_but_for_one() {
        assert_eq!(counted(1, "run"), "1 run");
        assert_eq!(counted(0, "failing run"), "0 failing runs");
        assert_eq!(counted(2, "channel"), "2 channels");
    }

    #[test]
    fn breaks_become_spaces_and_other_control_characters_are_escaped() {
        assert_eq!(one_line("a:\nb\r\n\tc \n"), "a: b c");
        assert_eq!(one_line("x\u{1b}[2J\u{7}y"), "x\\u{1b}[2J\\u{7}y");
        assert_eq!(one_line("é ü"), "é ü");
    }
}
