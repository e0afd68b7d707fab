//! `fwview A B`: two explorers side by side, one for each file, on the
//! same event loop, keys, commands, prompts, popups and panes as the view
//! of one file. What is particular to two files is here: which explorer
//! has the keys, the pairing of their nodes as the diff pairs them (the
//! other tree opens, selects and scrolls as the one with the keys does:
//! sections by name, whatever their order), and the diff
//! of the two files, run in the background (again when either file
//! changes), whose changes mark both trees' rows and the differing bytes,
//! and which `c` / `C` walk and `=` keeps alone.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread;

use crossterm::event::Event;
use ratatui::layout::{Constraint, Layout, Position};
use ratatui::Frame;

use super::app::App;
use super::changes::{join, Changes, Compare, Side};
use super::command::Command;
use super::document::Document;
use super::events::{self, Screen};
use super::filter::MAX_SHOWN;
use super::message::Message;
use super::{marks, reload, theme, ui};
use crate::diff;
use crate::model::{NodeId, Tree};

/// The query of the filter `=` sets.
const ONLY_CHANGES: &str = "changes";

/// What the other explorer was last made to follow: the explorer with the
/// keys, its selection, its tree's scroll and its open nodes.
type Followed = (usize, NodeId, usize, HashSet<NodeId>);

/// Two explorers, one for each file, and what differs between the files.
pub struct Pair {
    pub panes: [App; 2],
    /// The explorer with the keys (0: the first file, 1: the second).
    pub focused: usize,
    /// What the diff found, once it has answered.
    pub changes: Option<Arc<Changes>>,
    /// Where the diff reports; without it, it runs at once.
    pub tx: Option<Sender<Message>>,
    followed: Option<Followed>,
    /// The other explorer was made to follow but its scroll stopped short
    /// (bounded by the rows it last drew): it is levelled again once drawn.
    leveling: bool,
}

impl Pair {
    /// The two explorers on `a` and `b`, parsed from the files at `paths`.
    pub fn new(a: Tree, b: Tree, paths: (PathBuf, PathBuf)) -> Pair {
        let name = |p: &PathBuf| crate::model::text::clean(&p.display().to_string()).into_owned();
        let (na, nb) = (name(&paths.0), name(&paths.1));
        let mut pa = App::new(a, paths.0);
        let mut pb = App::new(b, paths.1);
        pa.compare = Some(Compare {
            side: Side::A,
            names: (na.clone(), nb.clone()),
            focused: true,
            changes: None,
        });
        pb.compare = Some(Compare {
            side: Side::B,
            names: (nb, na),
            focused: false,
            changes: None,
        });
        Pair {
            panes: [pa, pb],
            focused: 0,
            changes: None,
            tx: None,
            followed: None,
            leveling: false,
        }
    }

    /// The explorer with the keys.
    pub fn focused(&self) -> &App {
        &self.panes[self.focused & 1]
    }

    /// Runs the diff of the two files: in the background on trees of its
    /// own when the loop runs, else at once.
    pub fn compare(&mut self) {
        let Some(tx) = self.tx.clone() else {
            let [a, b] = &mut self.panes;
            let c = Changes::compute(&mut a.doc.tree, &mut b.doc.tree);
            self.set_changes(c);
            return;
        };
        let [a, b] = &self.panes;
        let (pa, pb) = (a.doc.path.clone(), b.doc.path.clone());
        let (parse, oa, ob) = (a.rebuild, a.doc.tree.options(), b.doc.tree.options());
        thread::spawn(move || {
            if let (Ok(mut x), Ok(mut y)) = (
                Document::open(&pa, parse, oa),
                Document::open(&pb, parse, ob),
            ) {
                let c = Changes::compute(&mut x.tree, &mut y.tree);
                let _ = tx.send(Message::Compared(Box::new(c)));
            }
        });
    }

    /// The diff answered: both trees mark what it found.
    pub fn set_changes(&mut self, c: Changes) {
        let c = Arc::new(c);
        self.changes = Some(c.clone());
        for app in &mut self.panes {
            if let Some(cmp) = app.compare.as_mut() {
                cmp.changes = Some(c.clone());
            }
        }
    }

    /// Gives the keys to explorer `i`.
    fn switch(&mut self, i: usize) {
        self.focused = i & 1;
        for (k, app) in self.panes.iter_mut().enumerate() {
            if let Some(c) = app.compare.as_mut() {
                c.focused = k == self.focused;
            }
        }
        self.followed = None;
    }

    /// The explorer whose panes hold the screen position.
    fn pane_at(&self, x: u16, y: u16) -> Option<usize> {
        let pos = Position { x, y };
        self.panes
            .iter()
            .position(|a| a.view.tree_area.contains(pos) || a.view.hex_area.contains(pos))
    }

    /// An input event: the commands of two files here, a click or the
    /// wheel to the explorer under it, everything else to the explorer
    /// with the keys.
    fn input(&mut self, ev: Event) {
        let f = self.focused;
        let app = &self.panes[f];
        let Some(cmd) = events::command(app, ev) else {
            return;
        };
        let busy = app.popup.is_some() || app.pending.is_some();
        if !busy && matches!(cmd, Command::NextChange | Command::PrevChange) {
            self.panes[f].message = None;
        }
        match cmd {
            Command::SwitchFile if !busy => self.switch(1 - f),
            Command::NextChange if !busy => self.next_change(true),
            Command::PrevChange if !busy => self.next_change(false),
            Command::OnlyChanges if !busy => self.only_changes(),
            Command::Click(x, y) | Command::ScrollUp(x, y) | Command::ScrollDown(x, y) if !busy => {
                if let Some(i) = self.pane_at(x, y) {
                    if matches!(cmd, Command::Click(..)) && i != f {
                        self.switch(i);
                    }
                    self.panes[i].run_command(cmd);
                }
            }
            c => self.panes[f].run_command(c),
        }
        self.follow();
    }

    /// A message for one explorer; a change of its file runs the diff again.
    fn pane_message(&mut self, i: usize, msg: Message) {
        let Some(app) = self.panes.get_mut(i) else {
            return;
        };
        let changed = matches!(msg, Message::FileChanged);
        events::dispatch(app, msg);
        if changed {
            // What the reload says shows whichever file has the keys.
            if i != self.focused {
                let said = self.panes[i].message.clone();
                self.panes[self.focused].message = said;
            }
            self.followed = None;
            self.compare();
        }
        self.follow();
    }

    /// Makes the other explorer follow the one with the keys: the partners
    /// of its open nodes open, the partner of its selection selected (else
    /// the nearest paired node above it) on the same screen line, where
    /// there are rows enough above it.
    fn follow(&mut self) {
        let Pair {
            panes, followed, ..
        } = self;
        let [a, b] = panes;
        let (src, dst) = if self.focused == 0 { (a, b) } else { (b, a) };
        let now = (
            self.focused,
            src.selected,
            src.tree_state.get_offset(),
            src.opened.clone(),
        );
        if followed.as_ref() == Some(&now) {
            return;
        }
        // The partners of the open nodes open, those of no open node close.
        let want: HashMap<NodeId, bool> = src
            .opened
            .iter()
            .filter_map(|&id| match partner(&src.doc.tree, id, &mut dst.doc.tree) {
                (p, true) => Some((p, src.auto_opened.contains(&id))),
                _ => None,
            })
            .collect();
        let stale: Vec<NodeId> = dst
            .opened
            .iter()
            .copied()
            .filter(|id| !want.contains_key(id))
            .collect();
        for id in stale {
            dst.close(id);
        }
        for (id, auto) in want {
            if !dst.opened.contains(&id) {
                dst.open(id);
            }
            if auto {
                dst.auto_opened.insert(id);
            } else {
                dst.auto_opened.remove(&id);
            }
        }
        let only = |a: &App| a.filter.as_ref().is_some_and(|x| x.query == ONLY_CHANGES);
        if !only(src) && only(dst) {
            dst.clear_filter();
        }
        let (id, _) = partner(&src.doc.tree, src.selected, &mut dst.doc.tree);
        dst.select(id, true);
        *followed = Some(now);
        self.leveling = !self.level().1;
    }

    /// Scrolls the other explorer so that the partner of the selection is
    /// on the selection's screen line: the rows either side adds above it (a
    /// compressed container's own, entries only one file has) scroll off
    /// rather than push it down, where there are rows enough above it.
    /// Returns whether its scroll changed, and whether the partner is on
    /// that line now.
    fn level(&mut self) -> (bool, bool) {
        let [a, b] = &mut self.panes;
        let (src, dst) = if self.focused == 0 { (a, b) } else { (b, a) };
        let line = |a: &App| a.visible().iter().position(|&r| r == a.selected);
        let (Some(s), Some(d)) = (line(src), line(dst)) else {
            return (false, true);
        };
        // The selection's screen line, negative or past the pane when the
        // wheel scrolled it out of view: the other tree scrolls alike.
        let off = src.tree_state.get_offset();
        let want = (d + off).saturating_sub(s);
        let changed = dst.scroll_tree_to(want);
        (changed, dst.tree_state.get_offset() == want)
    }

    /// `c` / `C`: the next / previous change in the tree with the keys,
    /// opening what holds it.
    fn next_change(&mut self, forward: bool) {
        let f = self.focused;
        let app = &mut self.panes[f];
        let Some(ch) = self.changes.clone() else {
            app.message = Some(("still comparing".into(), false));
            return;
        };
        let side = app.compare.as_ref().map_or(Side::A, |c| c.side);
        let list = change_nodes(&mut app.doc.tree, &ch, side);
        let here = index_path(&app.doc.tree, app.selected);
        let hit = if forward {
            list.iter().find(|(k, _)| *k > here)
        } else {
            list.iter().rev().find(|(k, _)| *k < here)
        };
        match hit {
            Some(&(_, id)) => {
                app.remember();
                app.select(id, true);
            }
            None => {
                let said = if forward {
                    "no change below"
                } else {
                    "no change above"
                };
                app.message = Some((said.into(), false));
            }
        }
    }

    /// `=`: only what changed in both trees (a filter of each), or
    /// everything again.
    fn only_changes(&mut self) {
        let Some(ch) = self.changes.clone() else {
            self.panes[self.focused].message = Some(("still comparing".into(), false));
            return;
        };
        let on = self.panes[self.focused]
            .filter
            .as_ref()
            .is_some_and(|f| f.query == ONLY_CHANGES);
        for app in &mut self.panes {
            if on {
                if app.filter.as_ref().is_some_and(|f| f.query == ONLY_CHANGES) {
                    app.clear_filter();
                }
                continue;
            }
            let side = app.compare.as_ref().map_or(Side::A, |c| c.side);
            let found: Vec<NodeId> = change_nodes(&mut app.doc.tree, &ch, side)
                .into_iter()
                .map(|(_, id)| id)
                .take(MAX_SHOWN)
                .collect();
            if !found.is_empty() {
                app.apply_filter(ONLY_CHANGES, found, true);
            }
        }
        let said = if on {
            "every node shown again"
        } else if ch.counts.is_empty() {
            "no difference"
        } else {
            "only changes shown (= or Esc shows all)"
        };
        self.panes[self.focused].message = Some((said.into(), false));
        self.followed = None;
        self.follow();
    }
}

impl Pair {
    /// Draws both explorers' panes in `areas`.
    fn render_panes(&mut self, frame: &mut Frame<'_>, [left, right]: [ratatui::layout::Rect; 2]) {
        let [a, b] = &mut self.panes;
        // Bytes are compared where both select one pair of nodes.
        let same = partner(&a.doc.tree, a.selected, &mut b.doc.tree) == (b.selected, true);
        ui::render_panes(
            a,
            frame,
            left,
            same.then(|| b.doc.tree.node_bytes(b.selected)),
        );
        ui::render_panes(
            b,
            frame,
            right,
            same.then(|| a.doc.tree.node_bytes(a.selected)),
        );
    }
}

impl Screen for Pair {
    fn draw(&mut self, frame: &mut Frame<'_>) {
        let [body, details, statusbar] = ui::rows(frame.area());
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(body);
        self.render_panes(frame, [left, right]);
        // The tree widget bounds a scroll by the rows it last drew, so the
        // other explorer, cut short before it drew the rows it has just
        // opened, is levelled again and drawn once more.
        if std::mem::take(&mut self.leveling) && self.level().0 {
            frame.render_widget(ratatui::widgets::Clear, body);
            self.render_panes(frame, [left, right]);
        }
        let f = self.focused();
        ui::render_bars(f, frame, details, statusbar);
        ui::render_popup(f, frame);
        theme::strip(frame.buffer_mut());
    }
    fn dispatch(&mut self, msg: Message) {
        match msg {
            Message::Input(ev) => self.input(ev),
            Message::Pane(i, m) => self.pane_message(i, *m),
            Message::Compared(c) => self.set_changes(*c),
            other => self.pane_message(self.focused, other),
        }
    }
    fn done(&self) -> bool {
        self.panes.iter().any(|a| a.quit)
    }
    fn take_clipboard(&mut self) -> Option<String> {
        self.panes.iter_mut().find_map(|a| a.clipboard.take())
    }
}

/// The node of `dst` paired with `id` of `src` as the diff pairs them
/// ([`diff::children_paired`] level by level, through a container that one
/// side has and the other lacks as [`diff::through`] finds it); with
/// whether it was found, else the nearest paired node above it.
fn partner(src: &Tree, id: NodeId, dst: &mut Tree) -> (NodeId, bool) {
    let path = src.path(id);
    let mut d = dst.root();
    let mut i = 0;
    while let (Some(&p), Some(&k)) = (path.get(i), path.get(i + 1)) {
        dst.expand(d);
        // Through a container: on dst's side, its inner node stands for
        // it; on src's side, the inner node on the way to `id` pairs with
        // `d`.
        if let Some(inner) = diff::inner_for(src, p, dst, d) {
            d = inner;
            dst.expand(d);
        } else if let Some(j) = diff::inner_on_path(src, &path[i..], dst, d) {
            i += j;
            continue;
        }
        let found = diff::children_paired(src, p, dst, d)
            .into_iter()
            .find(|x| x.0 == Some(k))
            .and_then(|x| x.1);
        match found {
            Some(c) => d = c,
            None => return (d, false),
        }
        i += 1;
    }
    (d, true)
}

/// Where a node is in the order the tree shows its nodes: the index of
/// each node on the way to it among its siblings.
fn index_path(tree: &Tree, id: NodeId) -> Vec<usize> {
    tree.path(id)
        .windows(2)
        .map(|w| {
            tree.built_children(w[0])
                .iter()
                .position(|&k| k == w[1])
                .unwrap_or(0)
        })
        .collect()
}

/// The nodes of `side`'s tree that are changes, in the order the tree
/// shows them, each with its [`index_path`]; only what holds a change is
/// walked.
fn change_nodes(tree: &mut Tree, ch: &Changes, side: Side) -> Vec<(Vec<usize>, NodeId)> {
    let mut out = Vec::new();
    let mut stack = vec![(tree.root(), String::new(), Vec::new())];
    while let Some((id, path, key)) = stack.pop() {
        if ch.is_change(side, &path) {
            out.push((key.clone(), id));
        }
        if !ch.inside(side, &path) {
            continue;
        }
        let kids = tree.children(id);
        for (i, &k) in kids.iter().enumerate().rev() {
            let mut kk = key.clone();
            kk.push(i);
            stack.push((k, join(&path, &tree.segment(k)), kk));
        }
    }
    out
}

/// A sender for explorer `i` whose messages reach the loop as
/// [`Message::Pane`].
fn pane_sender(i: usize, main: Sender<Message>) -> Sender<Message> {
    let (tx, rx) = mpsc::channel::<Message>();
    thread::spawn(move || {
        for m in rx {
            if main.send(Message::Pane(i, Box::new(m))).is_err() {
                break;
            }
        }
    });
    tx
}

/// Runs the view of two parsed files until the user quits.
pub fn run(a: Tree, b: Tree, paths: (PathBuf, PathBuf)) -> io::Result<()> {
    events::need_terminal("--diff")?;
    let mut pair = Pair::new(a, b, paths);
    let (tx, rx) = events::channel();
    for (i, app) in pair.panes.iter_mut().enumerate() {
        if let Some(store) = marks::marks_path() {
            app.keep_marks(store);
        }
        let ptx = pane_sender(i, tx.clone());
        app.tx = Some(ptx.clone());
        reload::watch(app.doc.path.clone(), ptx);
    }
    pair.tx = Some(tx.clone());
    pair.compare();
    events::run(&mut pair, tx, rx)
}
