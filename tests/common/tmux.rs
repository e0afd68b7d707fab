//! fwview in a real terminal, for the tmux tests: a tmux server per test,
//! send-keys to type, capture-pane to read the screen.

use std::process::Command;
use std::time::{Duration, Instant};

/// Tells servers started by one test process apart.
static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One tmux server of its own, with one session `t` running a command.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    pub fn start(cmd: &str, w: u16, h: u16) -> Option<Tmux> {
        if !super::tool("tmux") {
            return None;
        }
        let t = Tmux {
            socket: format!(
                "fwview-test-{}-{}-{}",
                std::process::id(),
                w,
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
        };
        let ok = t
            .cmd(&[
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
                cmd,
            ])
            .success();
        assert!(ok, "tmux new-session failed");
        t.cmd(&["set-option", "-t", "t", "remain-on-exit", "on"]);
        Some(t)
    }
    pub fn cmd(&self, args: &[&str]) -> std::process::ExitStatus {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .status()
            .unwrap()
    }
    pub fn out(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
    pub fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", "t"];
        a.extend_from_slice(keys);
        self.cmd(&a);
    }
    pub fn text(&self, s: &str) {
        self.cmd(&["send-keys", "-t", "t", "-l", s]);
    }
    pub fn screen(&self) -> String {
        self.out(&["capture-pane", "-p", "-t", "t"])
    }
    pub fn var(&self, v: &str) -> String {
        self.out(&["display-message", "-p", "-t", "t", v])
            .trim()
            .to_string()
    }
    /// Waits until the screen satisfies `f`, and returns it.
    pub fn wait(&self, what: &str, f: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            // A capture can land between two writes of one frame: take a
            // screen only once it holds still.
            if f(&s) {
                std::thread::sleep(Duration::from_millis(80));
                if self.screen() == s {
                    return s;
                }
                continue;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .status();
    }
}
