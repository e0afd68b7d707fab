//! Keys and mouse events to commands: a pure function of the event and of
//! whether a prompt is taking text.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use super::app::Command;

/// What the keys act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The panes (or a popup that takes movement keys).
    Normal,
    /// A prompt: printable keys are text.
    Text,
    /// One letter is awaited (a mark's name, a copy choice, y/n).
    Letter,
}

pub fn map_key(k: KeyEvent, mode: Mode) -> Option<Command> {
    if k.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && k.code == KeyCode::Char('c') {
        return Some(Command::Quit);
    }
    if mode == Mode::Text {
        use tui_input::InputRequest as R;
        let word = ctrl || k.modifiers.contains(KeyModifiers::ALT);
        return match k.code {
            KeyCode::Esc => Some(Command::Escape),
            KeyCode::Enter => Some(Command::Submit),
            KeyCode::Backspace => Some(Command::Backspace),
            KeyCode::Up => Some(Command::Up),
            KeyCode::Down => Some(Command::Down),
            KeyCode::Char('t') if ctrl => Some(Command::ToggleCase),
            KeyCode::Char('p') if ctrl => Some(Command::Up),
            KeyCode::Char('n') if ctrl => Some(Command::Down),
            KeyCode::Left if word => Some(Command::Edit(R::GoToPrevWord)),
            KeyCode::Right if word => Some(Command::Edit(R::GoToNextWord)),
            KeyCode::Left => Some(Command::Edit(R::GoToPrevChar)),
            KeyCode::Right => Some(Command::Edit(R::GoToNextChar)),
            KeyCode::Home => Some(Command::Edit(R::GoToStart)),
            KeyCode::End => Some(Command::Edit(R::GoToEnd)),
            KeyCode::Delete => Some(Command::Edit(R::DeleteNextChar)),
            KeyCode::Char('a') if ctrl => Some(Command::Edit(R::GoToStart)),
            KeyCode::Char('e') if ctrl => Some(Command::Edit(R::GoToEnd)),
            KeyCode::Char('b') if ctrl => Some(Command::Edit(R::GoToPrevChar)),
            KeyCode::Char('f') if ctrl => Some(Command::Edit(R::GoToNextChar)),
            KeyCode::Char('u') if ctrl => Some(Command::Edit(R::DeleteFromStart)),
            KeyCode::Char('k') if ctrl => Some(Command::Edit(R::DeleteTillEnd)),
            KeyCode::Char('w') if ctrl => Some(Command::Edit(R::DeletePrevWord)),
            KeyCode::Char('h') if ctrl => Some(Command::Backspace),
            KeyCode::Char('d') if ctrl => Some(Command::Edit(R::DeleteNextChar)),
            KeyCode::Char('y') if ctrl => Some(Command::Edit(R::Yank)),
            KeyCode::Char(c) if !ctrl => Some(Command::Input(c)),
            _ => None,
        };
    }
    if mode == Mode::Letter {
        return match k.code {
            KeyCode::Esc => Some(Command::Escape),
            KeyCode::Char(c) if !ctrl => Some(Command::Input(c)),
            _ => Some(Command::Escape),
        };
    }
    let alt = k.modifiers.contains(KeyModifiers::ALT);
    match k.code {
        KeyCode::Char('o') if ctrl => return Some(Command::Back),
        KeyCode::Char('n') if ctrl => return Some(Command::Forward),
        KeyCode::Left if alt => return Some(Command::Back),
        KeyCode::Right if alt => return Some(Command::Forward),
        _ => {}
    }
    Some(match k.code {
        KeyCode::Char('q') => Command::Quit,
        KeyCode::Esc => Command::Escape,
        KeyCode::Up | KeyCode::Char('k') => Command::Up,
        KeyCode::Down | KeyCode::Char('j') => Command::Down,
        KeyCode::Left | KeyCode::Char('h') => Command::Left,
        KeyCode::Right | KeyCode::Char('l') => Command::Right,
        KeyCode::PageUp => Command::PageUp,
        KeyCode::PageDown => Command::PageDown,
        KeyCode::Char('b') if ctrl => Command::PageUp,
        KeyCode::Char('f') if ctrl => Command::PageDown,
        KeyCode::Home => Command::Home,
        KeyCode::End => Command::End,
        KeyCode::Enter => Command::Activate,
        KeyCode::Char(' ') => Command::Toggle,
        KeyCode::Tab | KeyCode::BackTab => Command::SwitchFocus,
        KeyCode::Char(']') => Command::NextSibling,
        KeyCode::Char('[') => Command::PrevSibling,
        KeyCode::Char('g') => Command::OpenGoto,
        KeyCode::Char('?') => Command::OpenHelp,
        KeyCode::Char('/') => Command::OpenSearch,
        KeyCode::Char('n') => Command::NextMatch,
        KeyCode::Char('N') => Command::PrevMatch,
        KeyCode::Char('f') => Command::Follow,
        KeyCode::Char('i') => Command::ToggleInspector,
        KeyCode::Char('e') => Command::SwapEndian,
        KeyCode::Char('m') => Command::StartMark,
        KeyCode::Char('\'') => Command::StartJump,
        KeyCode::Char('M') => Command::ListMarks,
        KeyCode::Char('!') => Command::ListDiagnostics,
        KeyCode::Char('y') => Command::OpenCopy,
        KeyCode::Char('x') => Command::OpenSave,
        KeyCode::Char('#') => Command::CycleNumbers,
        KeyCode::Char('z') => Command::CollapseAll,
        _ => return None,
    })
}

pub fn map_mouse(m: MouseEvent) -> Option<Command> {
    match m.kind {
        MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
            Some(Command::Click(m.column, m.row))
        }
        MouseEventKind::ScrollUp => Some(Command::ScrollUp(m.column, m.row)),
        MouseEventKind::ScrollDown => Some(Command::ScrollDown(m.column, m.row)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn vim_and_arrow_keys_agree() {
        for (a, b) in [
            (KeyCode::Up, KeyCode::Char('k')),
            (KeyCode::Down, KeyCode::Char('j')),
            (KeyCode::Left, KeyCode::Char('h')),
            (KeyCode::Right, KeyCode::Char('l')),
        ] {
            assert_eq!(map_key(key(a), Mode::Normal), map_key(key(b), Mode::Normal));
        }
    }

    #[test]
    fn prompts_take_text() {
        assert_eq!(
            map_key(key(KeyCode::Char('q')), Mode::Text),
            Some(Command::Input('q'))
        );
        assert_eq!(
            map_key(key(KeyCode::Char('q')), Mode::Normal),
            Some(Command::Quit)
        );
        assert_eq!(
            map_key(key(KeyCode::Esc), Mode::Text),
            Some(Command::Escape)
        );
        assert_eq!(
            map_key(
                KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
                Mode::Text
            ),
            Some(Command::Quit)
        );
    }
}
