use super::catalogue::{entries, Group};
use super::*;
use crate::marks::Mark;

fn typed(list: &mut HelpList, text: &str) {
    for c in text.chars() {
        let s = c.to_string();
        assert_eq!(list.key(&Key::Character(s.as_str().into()), Some(&s)), Reply::Taken);
    }
}

#[test]
fn every_default_binding_is_in_one_entry_with_all_its_keys() {
    let bindings = Bindings::default();
    let entries = entries(&bindings);
    let keys: usize = entries.iter().map(|e| e.keys.len()).sum();
    assert_eq!(keys, bindings.bound().count());
    let pause = entries.iter().find(|e| e.commands == [Command::TogglePause]).unwrap();
    assert_eq!(pause.keys, ["SPACE", "p", "MBTN_RIGHT", "PLAY", "PAUSE", "PLAYPAUSE"]);
    assert_eq!(pause.group, Group::Playback);
    assert_eq!(pause.text, "cycle pause");
    let help = entries.iter().find(|e| e.commands == [Command::ToggleHelp]).unwrap();
    assert_eq!(help.keys, ["?", "F1", "MENU"]);
    // Grouped in the groups' order, the bindings' order within each.
    assert!(entries.windows(2).all(|w| w[0].group <= w[1].group));
    let quit = entries.iter().find(|e| e.commands == [Command::Quit]).unwrap();
    assert_eq!(quit.keys, ["q", "STOP", "Ctrl+w"]);
    // mpv's Ctrl+c quits with status 4.
    let four = entries
        .iter()
        .find(|e| e.commands == [Command::QuitWithStatus(4)])
        .unwrap();
    assert_eq!(four.keys, ["Ctrl+c"]);
    assert_eq!(four.text, "quit 4");
    let later = entries
        .iter()
        .find(|e| e.commands == [Command::QuitWatchLater])
        .unwrap();
    assert_eq!(later.keys, ["Q"]);
}

#[test]
fn an_input_conf_shows_in_the_list() {
    let (bindings, warnings) = Bindings::default().with_conf("z cycle zebra\nX ignore\nSPACE ignore\n", "input.conf");
    assert!(warnings.is_empty());
    let entries = entries(&bindings);
    let zebra = entries
        .iter()
        .find(|e| e.commands == [Command::ToggleMark(Mark::Zebra)])
        .unwrap();
    assert_eq!(zebra.keys, ["z"], "X unbound, z bound");
    let pause = entries.iter().find(|e| e.commands == [Command::TogglePause]).unwrap();
    assert!(!pause.keys.contains(&"SPACE".to_string()));
}

#[test]
fn typing_filters_and_enter_runs_the_chosen_command() {
    let mut list = HelpList::new(&Bindings::default());
    list.toggle();
    assert!(list.is_open());
    typed(&mut list, "false col");
    let matches: Vec<_> = list.matches().iter().map(|e| e.commands.clone()).collect();
    assert_eq!(matches, [vec![Command::ToggleMark(Mark::FalseColour)]]);
    assert_eq!(
        list.key(&Key::Named(NamedKey::Enter), None),
        Reply::Run(vec![Command::ToggleMark(Mark::FalseColour)])
    );
    assert!(!list.is_open());
    // Opened again: a fresh query; arrows choose, Backspace widens, Escape closes.
    list.toggle();
    assert_eq!(list.query(), "");
    typed(&mut list, "zebra");
    let zebra: Vec<_> = list.matches().iter().map(|e| e.description.clone()).collect();
    assert_eq!(zebra, ["Zebras on or off", "Zebra level -1%", "Zebra level +1%"]);
    list.key(&Key::Named(NamedKey::ArrowDown), None);
    list.key(&Key::Named(NamedKey::ArrowDown), None);
    list.key(&Key::Named(NamedKey::ArrowDown), None);
    assert_eq!(list.selected(), 2, "the last match at most");
    assert_eq!(
        list.key(&Key::Named(NamedKey::Enter), None),
        Reply::Run(vec![Command::ZebraBy(1.0)])
    );
    list.toggle();
    typed(&mut list, "qqqq");
    assert!(list.matches().is_empty());
    assert_eq!(list.key(&Key::Named(NamedKey::Enter), None), Reply::Closed);
    list.toggle();
    assert_eq!(list.key(&Key::Named(NamedKey::Escape), None), Reply::Closed);
    assert!(!list.is_open());
}

#[test]
fn keys_are_searched_too() {
    let mut list = HelpList::new(&Bindings::default());
    list.toggle();
    typed(&mut list, "alt+m");
    let found: Vec<_> = list.matches().iter().map(|e| e.commands.clone()).collect();
    assert_eq!(found, [vec![Command::ToggleMeters]]);
}

#[test]
fn the_wheel_moves_the_chosen_row_within_the_matches() {
    let mut list = HelpList::new(&Bindings::default());
    list.toggle();
    typed(&mut list, "zebra");
    list.scroll(5);
    assert_eq!(list.selected(), 2);
    list.scroll(-1);
    assert_eq!(list.selected(), 1);
    list.scroll(-9);
    assert_eq!(list.selected(), 0);
}
