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
    /// A click, double-click or wheel turn at a cell.
    case mouse(MouseEvent)
    case unknown(Int32)
}

/// What the mouse did, and at which cell (column x, line y, from the top left).
public struct MouseEvent: Hashable, Sendable {
    /// The mouse actions the terminal session reports.
    public enum Action: Hashable, Sendable {
        /// The primary button was pressed and released.
        case click
        /// The primary button was clicked twice in quick succession.
        case doubleClick
        /// The wheel turned up (content moves down) or down.
        case scrollUp, scrollDown
    }

    public var action: Action
    public var x: Int
    public var y: Int

    public init(_ action: Action, x: Int, y: Int) {
        self.action = action
        self.x = x
        self.y = y
    }
}
