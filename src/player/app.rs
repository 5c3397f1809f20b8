//! The winit application: turns window events into `Command`s for the player window, and sets
//! the event loop to wake when the window next needs it (`ControlFlow::WaitUntil`), never
//! spinning. Owns nothing but the wiring.

use super::bench::BenchReport;
use super::bindings::{Mouse, WheelNotches};
use super::commands::Command;
use super::media::OpenedFile;
use super::playlist::Playlist;
use super::window::PlayerWindow;
use super::{PlayerError, PlayerOptions, UserEvent};
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, DeviceId, ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoopProxy};
use winit::keyboard::ModifiersState;
use winit::window::WindowId;

/// The shortest sleep between two looks at the player.
const MIN_WAIT: Duration = Duration::from_micros(500);
/// Two left clicks this close make a double-click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);

pub struct App {
    /// The file to play and the playlist it is in, until the window exists.
    opened: Option<(OpenedFile, Playlist)>,
    options: PlayerOptions,
    proxy: EventLoopProxy<UserEvent>,
    player: Option<PlayerWindow>,
    modifiers: ModifiersState,
    wheel: WheelNotches,
    /// The last left-button press on the picture, for double-clicks.
    last_click: Option<(Instant, (f64, f64))>,
    /// How the player ended: set before the loop is told to exit.
    pub outcome: Option<Result<Option<BenchReport>, PlayerError>>,
}

impl App {
    pub fn new(
        opened: OpenedFile,
        playlist: Playlist,
        options: PlayerOptions,
        proxy: EventLoopProxy<UserEvent>,
    ) -> Self {
        Self {
            opened: Some((opened, playlist)),
            options,
            proxy,
            player: None,
            modifiers: ModifiersState::empty(),
            wheel: WheelNotches::default(),
            last_click: None,
            outcome: None,
        }
    }

    fn finish(&mut self, event_loop: &ActiveEventLoop, outcome: Result<(), PlayerError>) {
        if self.outcome.is_none() {
            if let (Some(player), Ok(())) = (&mut self.player, &outcome) {
                player.quitting();
            }
            let report = self.player.as_ref().and_then(PlayerWindow::bench_report);
            self.outcome = Some(outcome.map(|()| report));
        }
        event_loop.exit();
    }

    fn command(&mut self, event_loop: &ActiveEventLoop, command: Command) {
        let Some(player) = &mut self.player else { return };
        if !player.apply(command) {
            self.finish(event_loop, Ok(()));
        }
    }

    /// Runs what a mouse button or wheel notch is bound to.
    fn mouse(&mut self, event_loop: &ActiveEventLoop, mouse: Mouse) {
        let Some(player) = &self.player else { return };
        let commands = player.bindings.mouse(mouse, self.modifiers).to_vec();
        for command in commands {
            self.command(event_loop, command);
        }
    }

    /// A left-button press: the second of two close in time and place is a double-click.
    fn left_press(&mut self, event_loop: &ActiveEventLoop) {
        let now = Instant::now();
        let Some((x, y)) = self.player.as_ref().and_then(PlayerWindow::pointer_at) else {
            return;
        };
        let double = self.last_click.is_some_and(|(at, (px, py))| {
            now.duration_since(at) <= DOUBLE_CLICK && (x - px).abs() <= 8.0 && (y - py).abs() <= 8.0
        });
        if double {
            self.last_click = None;
            self.mouse(event_loop, Mouse::LeftDouble);
        } else {
            self.last_click = Some((now, (x, y)));
        }
    }
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let Some((opened, playlist)) = self.opened.take() else {
            return;
        };
        match PlayerWindow::new(event_loop, opened, playlist, &self.options, self.proxy.clone()) {
            Ok(player) => self.player = Some(player),
            Err(e) => self.finish(event_loop, Err(e)),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(player) = &mut self.player else { return };
        if !matches!(event, WindowEvent::RedrawRequested) && player.egui.on_window_event(&player.window, &event) {
            player.redraw_later();
        }
        match event {
            WindowEvent::CloseRequested => self.finish(event_loop, Ok(())),
            WindowEvent::RedrawRequested => {
                if let Err(e) = player.redraw() {
                    self.finish(event_loop, Err(e));
                }
            }
            WindowEvent::Resized(size) => player.resize(size),
            WindowEvent::ModifiersChanged(modifiers) => self.modifiers = modifiers.state(),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                player.touched();
                // The open help list takes every key: typing filters it.
                if player.help.is_open() {
                    let reply = player.help.key(&event.logical_key, event.text.as_deref());
                    if !player.help_reply(reply) {
                        self.finish(event_loop, Ok(()));
                    }
                    return;
                }
                let commands = player
                    .bindings
                    .key(&event.logical_key, event.location, self.modifiers)
                    .to_vec();
                for command in commands {
                    if !event.repeat || command.repeats() {
                        self.command(event_loop, command);
                    }
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                player.touched();
                // Over the open help list, the wheel chooses a row.
                if player.help.is_open() {
                    for notch in self.wheel.notches(delta) {
                        match notch {
                            Mouse::WheelUp => player.help.scroll(-1),
                            Mouse::WheelDown => player.help.scroll(1),
                            _ => {}
                        }
                    }
                    return;
                }
                for notch in self.wheel.notches(delta) {
                    self.mouse(event_loop, notch);
                }
            }
            WindowEvent::DroppedFile(path) => self.command(event_loop, Command::Open(vec![path])),
            WindowEvent::CursorMoved { position, .. } => {
                player.touched();
                player.pointer_moved(Some((position.x, position.y)));
            }
            WindowEvent::CursorLeft { .. } => player.pointer_moved(None),
            WindowEvent::MouseInput { state, button, .. } => {
                player.touched();
                // The OSD's own widgets take their clicks.
                let pressed = state == ElementState::Pressed;
                if button == MouseButton::Right && !player.egui.using_pointer() && !player.right_button(pressed) {
                    return self.finish(event_loop, Ok(()));
                }
                if button == MouseButton::Left && !pressed {
                    player.left_button(false);
                }
                if !pressed || player.egui.using_pointer() || player.pointer_over_osd() {
                    return;
                }
                match button {
                    MouseButton::Left => {
                        // Comparing in wipe mode, the press moves the line there.
                        player.left_button(true);
                        self.left_press(event_loop);
                    }
                    MouseButton::Middle => self.mouse(event_loop, Mouse::Middle),
                    MouseButton::Back => self.mouse(event_loop, Mouse::Back),
                    MouseButton::Forward => self.mouse(event_loop, Mouse::Forward),
                    _ => {}
                }
            }
            WindowEvent::Focused(true) => player.touched(),
            WindowEvent::Occluded(false) | WindowEvent::ScaleFactorChanged { .. } => player.redraw_later(),
            _ => {}
        }
    }

    fn device_event(&mut self, _: &ActiveEventLoop, _: DeviceId, event: DeviceEvent) {
        if let DeviceEvent::Button { button: 4..=7, state } = event {
            self.wheel.raw_button(state == ElementState::Released);
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: UserEvent) {
        if let UserEvent::Quit = event {
            return self.finish(event_loop, Ok(()));
        }
        let Some(player) = &mut self.player else { return };
        match event {
            // about_to_wait, next, takes what arrived and schedules.
            UserEvent::Decoded | UserEvent::GpuDone => {}
            UserEvent::Opened(path, result) => player.opened(path, *result),
            UserEvent::ScreenshotSaved(Ok(path)) => {
                log::info!("screenshot: {}", path.display());
                player.message(format!("saved {}", path.display()), false);
            }
            UserEvent::ScreenshotSaved(Err(e)) => player.message(e, true),
            UserEvent::Fatal(e) => self.finish(event_loop, Err(e)),
            UserEvent::Quit => {}
            UserEvent::SoundSwitched(switch) => player.sound_switched(*switch),
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(player) = &mut self.player else { return };
        let now = Instant::now();
        if let Some(log) = &mut player.frame_log {
            log.wake(now);
        }
        // `bench-play` drives the player through its script, as keys would.
        let script = player.run_bench(now);
        let (redraw, wake) = player.schedule(now);
        let wake = wake.into_iter().chain(script).min();
        if player.bench.as_ref().is_some_and(|b| b.finished()) {
            return self.finish(event_loop, Ok(()));
        }
        if redraw {
            player.window.request_redraw();
        }
        event_loop.set_control_flow(match wake {
            // Every deadline is in the future; the floor only bounds the damage should one not be.
            Some(at) if !redraw => ControlFlow::WaitUntil(at.max(now + MIN_WAIT)),
            // A redraw is coming; after it this runs again.
            _ => ControlFlow::Wait,
        });
    }
}
