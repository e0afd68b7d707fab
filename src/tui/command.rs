//! What the user can ask for: the commands keys and the mouse map to
//! (`keys`), and the little state they are read in.

/// Which pane takes the movement keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Hex,
}

/// Everything the user can ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Quit,
    /// Ctrl-c: quits from anywhere, a prompt or a popup included.
    Interrupt,
    /// Esc: cancel a search or close the popup; never quits.
    Escape,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    /// Ctrl-u / Ctrl-d: half a page.
    HalfPageUp,
    HalfPageDown,
    /// Enter in a pane: follow the node's link, else open or close it.
    Activate,
    Toggle,
    NextSibling,
    PrevSibling,
    SwitchFocus,
    OpenGoto,
    OpenHelp,
    /// Typing in a prompt.
    Input(char),
    /// Editing a prompt's line: cursor moves and deletions.
    Edit(tui_input::InputRequest),
    Backspace,
    Submit,
    /// Mouse: a click or the wheel at a screen position.
    Click(u16, u16),
    ScrollUp(u16, u16),
    ScrollDown(u16, u16),
    OpenSearch,
    /// Ctrl-t in the search prompt.
    ToggleCase,
    /// Tab in a prompt: complete what is typed (the goto prompt).
    Complete,
    NextMatch,
    PrevMatch,
    Follow,
    Back,
    Forward,
    ToggleInspector,
    SwapEndian,
    /// `m`: the next letter names a mark to set.
    StartMark,
    /// `'`: the next letter names a mark to jump to.
    StartJump,
    ListMarks,
    ListDiagnostics,
    /// `d`: the selected node in full.
    ShowNode,
    /// `w`: tree and hex as they fit, the hex pane wide, the hex alone.
    CyclePanes,
    OpenCopy,
    OpenSave,
    /// `#`: numbers in values natural → hex → decimal.
    CycleNumbers,
    /// `z`: close every node but the root.
    CollapseAll,
    /// `*`: open the selected node and all below it.
    OpenSubtree,
    /// `F`: the filter prompt.
    OpenFilter,
    /// `v`: start or end choosing a range of bytes.
    Visual,
    /// `s`: the strings of the file.
    ListStrings,
    /// `o`: the blocks of the file, their entropy.
    OpenOverview,
    /// `K`: the prompt for a `.ksy` description to read the node with.
    OpenDescribe,
    /// Two files: `Ctrl-w` gives the keys to the other file's panes.
    SwitchFile,
    /// Two files: `c` / `C`, the next / previous change.
    NextChange,
    PrevChange,
    /// Two files: `=` shows only what changed, or everything again.
    OnlyChanges,
}

/// A key that waits for a letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    SetMark,
    JumpMark,
}
