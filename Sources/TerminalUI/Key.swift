/// A key press, mouse action or terminal event, as the event loop sees it.
public enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    /// Control plus a letter, such as Ctrl-B (`control("b")`).
    case control(Character)
    case function(Int)
    /// The terminal changed size.
    case resize
    /// A mouse event curses could not describe more simply.
    case mouse
    case unknown(Int32)
}
