/// How a module or a child coordinator is shown.
public enum PresentationStyle: Sendable, Hashable, CustomStringConvertible {
    /// Pushed onto a navigation stack: the visible one when the presenter or one of its children shows the
    /// visible module, else the presenter's topmost modal, else the presenter's own stack.
    case inline
    /// Shown over everything in a new modal layer with a navigation stack of its own.
    case modal
    /// Added as a tab with this title to the root tab bar.
    case tab(String)
    /// Replaces the presenter's own navigation stack (a "set root module"): a tab's or a modal child's
    /// stack, the stack an inline child was opened on, the main stack for the root coordinator; never
    /// whatever happens to be visible. On the main stack this resets the whole presentation: tabs and
    /// modals are removed too, and the children that showed them finish.
    case root

    /// `inline`, `modal`, `tab 'Title'` or `root`, as events print it.
    public var description: String {
        switch self {
        case .inline: "inline"
        case .modal: "modal"
        case .tab(let title): "tab '\(title)'"
        case .root: "root"
        }
    }
}
