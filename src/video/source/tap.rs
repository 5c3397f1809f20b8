//! A live input's sound, handed on packet by packet as its video's decoder reads the input (a
//! live input can't be read twice), and kept for a while: the timeshift window's sound is
//! decoded again from these packets when the picture plays the past.

use ffmpeg_next as ffmpeg;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Bytes of compressed sound kept, each packet counted with `PACKET_OVERHEAD`: about half an
/// hour of AAC at 128 kbit/s, six minutes of 48 kHz stereo PCM.
pub const PACKET_WINDOW_BYTES: usize = 64 << 20;
/// What a packet holds beyond its data (FFmpeg's packet and buffer, the queue's entry).
const PACKET_OVERHEAD: usize = 256;

/// A stream's packets as they are read, the last ones kept (up to a budget of bytes), each
/// numbered in the order it came: a reader goes through them in turn from any packet the
/// window still holds, waiting for the next one at the newest.
#[derive(Default)]
pub struct PacketWindow {
    state: Mutex<State>,
    arrived: Condvar,
    /// A reader that holds the packets it has not read moved on (`hold`).
    read: Condvar,
}

#[derive(Default)]
struct State {
    packets: VecDeque<ffmpeg::Packet>,
    /// The number of `packets[0]`.
    first: u64,
    bytes: usize,
    /// The input ended: no packet comes after the newest.
    ended: bool,
    /// Where a reader that must read every packet (`hold`) is: packets from there on are kept
    /// beyond the budget, and the input's reader waits for it.
    held_from: Option<u64>,
}

// SAFETY: the packets are FFmpeg's reference-counted buffers, handed between threads under the
// lock; a clone given out is a reference of its own.
unsafe impl Send for State {}

/// What a reader gets next.
pub enum Next {
    Packet(ffmpeg::Packet),
    /// None came in the time waited.
    Waiting,
    /// The input ended and every packet was read.
    Ended,
}

impl PacketWindow {
    /// Keeps `packet` as the newest, letting the oldest go beyond `budget` bytes; where a
    /// reader holds the packets (`hold`), only those it has read, waiting for it to read on.
    pub fn push(&self, packet: ffmpeg::Packet, budget: usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.bytes += packet.size() + PACKET_OVERHEAD;
        state.packets.push_back(packet);
        self.arrived.notify_all();
        loop {
            while state.bytes > budget
                && state.packets.len() > 1
                && state.held_from.is_none_or(|read| state.first < read)
            {
                let oldest = state.packets.pop_front().expect("more than one");
                state.bytes -= oldest.size() + PACKET_OVERHEAD;
                state.first += 1;
            }
            if state.bytes <= budget || state.packets.len() <= 1 || state.held_from.is_none() {
                return;
            }
            state = self.read.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Keeps every packet until it has been read (`next`): the reader that must read them all
    /// (a report's) holds up the input's reader rather than lose them, until `release`.
    pub fn hold(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.held_from = Some(state.first);
    }

    /// Lets the packets go as the budget says again (the reader that held them is done).
    pub fn release(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).held_from = None;
        self.read.notify_all();
    }

    /// No packet comes after the newest.
    pub fn end(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).ended = true;
        self.arrived.notify_all();
    }

    /// The number of the packet to read from for time `pts` (in the stream's time base): the
    /// last one at or before it (the oldest held, before them all; after the newest, the next
    /// to come).
    pub fn position_at(&self, pts: i64) -> u64 {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let newest = state.packets.back().and_then(ffmpeg::Packet::pts);
        if newest.is_none_or(|newest| pts > newest) {
            return state.first + state.packets.len() as u64;
        }
        let at = state
            .packets
            .iter()
            .rposition(|p| p.pts().is_some_and(|p| p <= pts))
            .unwrap_or(0);
        state.first + at as u64
    }

    /// Packet `*at` (or, if the window let go of it, its oldest), `*at` moved past it; waits up
    /// to `wait` for it to come.
    pub fn next(&self, at: &mut u64, wait: Duration) -> Next {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let held = |state: &State, at: u64| at < state.first + state.packets.len() as u64;
        let (state, _) = self
            .arrived
            .wait_timeout_while(state, wait, |state| !held(state, *at) && !state.ended)
            .unwrap_or_else(|e| e.into_inner());
        if !held(&state, *at) {
            return match state.ended {
                true => Next::Ended,
                false => Next::Waiting,
            };
        }
        let mut state = state;
        *at = (*at).max(state.first);
        let packet = state.packets[(*at - state.first) as usize].clone();
        *at += 1;
        if let Some(read) = &mut state.held_from {
            *read = (*read).max(*at);
            self.read.notify_all();
        }
        Next::Packet(packet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(pts: i64, bytes: usize) -> ffmpeg::Packet {
        let mut packet = ffmpeg::Packet::copy(&vec![pts as u8; bytes]);
        packet.set_pts(Some(pts));
        packet
    }

    fn read(window: &PacketWindow, at: &mut u64) -> Option<i64> {
        match window.next(at, Duration::ZERO) {
            Next::Packet(packet) => packet.pts(),
            Next::Waiting | Next::Ended => None,
        }
    }

    #[test]
    fn packets_are_read_in_turn_from_any_point_the_window_holds() {
        let window = PacketWindow::default();
        // 10 packets of 100 bytes, 1024 ticks apart, in a window of five: the last 5.
        let budget = 5 * (100 + PACKET_OVERHEAD);
        for k in 0..10 {
            window.push(packet(k * 1024, 100), budget);
        }
        assert_eq!(window.position_at(0), 5, "before the window: its oldest");
        assert_eq!(window.position_at(7 * 1024 + 500), 7, "the packet the time falls in");
        assert_eq!(window.position_at(20_000), 10, "after the newest: the next to come");
        let mut at = window.position_at(8 * 1024);
        assert_eq!(read(&window, &mut at), Some(8 * 1024));
        assert_eq!(read(&window, &mut at), Some(9 * 1024));
        assert!(matches!(window.next(&mut at, Duration::from_millis(1)), Next::Waiting));
        window.push(packet(10 * 1024, 100), budget);
        assert_eq!(read(&window, &mut at), Some(10 * 1024));
        // A reader the window left behind goes on from its oldest.
        let mut behind = 2;
        assert_eq!(read(&window, &mut behind), Some(6 * 1024));
        window.end();
        assert!(matches!(window.next(&mut at, Duration::from_secs(5)), Next::Ended));
    }

    #[test]
    fn a_holding_reader_loses_no_packet_and_holds_the_input_up_until_it_reads() {
        let window = std::sync::Arc::new(PacketWindow::default());
        window.hold();
        let budget = 2 * (100 + PACKET_OVERHEAD);
        let pushing = {
            let window = std::sync::Arc::clone(&window);
            std::thread::spawn(move || {
                for k in 0..10 {
                    window.push(packet(k, 100), budget);
                }
                window.end();
            })
        };
        // Every packet, in turn, however far the input's reader would have gone on.
        let mut at = 0;
        let mut read = Vec::new();
        loop {
            match window.next(&mut at, Duration::from_secs(10)) {
                Next::Packet(packet) => read.push(packet.pts().unwrap()),
                Next::Ended => break,
                Next::Waiting => panic!("nothing came in 10 s: {read:?}"),
            }
        }
        pushing.join().unwrap();
        assert_eq!(read, (0..10).collect::<Vec<i64>>());
        // Released, the budget holds again.
        window.release();
        window.push(packet(10, 100), budget);
        window.push(packet(11, 100), budget);
        window.push(packet(12, 100), budget);
        assert_eq!(window.position_at(0), 11, "the oldest two within the budget");
    }
}
