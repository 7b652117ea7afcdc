import FlowHost
import FlowKit
import FlowShell

extension TraceRecorder {
    /// Writes the `screen` line: what is on screen, as `screen` records it: the presentation, the visible
    /// stack, the content of the module on top (redacted), and the input's status and outcome.
    func writeScreen(status: HostShell.Status) {
        let router = shell?.host.coordinator.router
        var presentation: [UInt8]?
        if let router {
            // Moved out while it is looked through, as ``takeTracking()`` moves what it takes.
            var presentations = EncodedPresentations()
            swap(&presentations, &screenPresentations)
            presentation = presentations.members(for: router.state, input: input)
            swap(&presentations, &screenPresentations)
        }
        emit(.screen) { line in
            switch status {
            case .ok, .quit: line.add("status") { $0.literal(#""ok""#) }
            case .error(let message):
                line.add("status") { $0.literal(#""error""#) }
                line.add("error", redaction.redact(text: message))
            case .expectationFailed(let message):
                line.add("status") { $0.literal(#""expectationFailed""#) }
                line.add("error", redaction.redact(text: message))
            }
            guard let shell, let router, let presentation else { return }
            if let outcome = shell.lastOutcome { line.add("outcome", redaction.redact(text: outcome.description)) }
            line.add(members: presentation)
            if let top = router.top { addPayload("content", digestName: "contentDigest", top.content, into: &line) }
        }
    }
}

/// The `stack`, `presentation` and `top` members of screen lines, encoded, each kept with the presentation it
/// encodes, so that a presentation seen before is not encoded again.
///
/// The presentation after an input tends to be one seen after the input of the same number in a session
/// before: each subject of an experiment runs the same script, and sees one of a few variants. So the last
/// few presentations of each input number are kept (of the number taken modulo ``slots``), and one is used
/// when it is equal to the presentation on screen: the input number only says where to look.
///
/// Equal is FlowKit's `==`, which compares names as Swift compares strings: `é` as one scalar equals `e` and a
/// combining accent. So only a presentation written in ASCII is kept, with the UTF-8 length of its names and
/// titles, and one equal to it is written from it only when its names and titles are as long: a string
/// canonically equivalent to an ASCII one but spelled otherwise has a scalar beyond ASCII (the Kelvin sign
/// for `K`), which takes two bytes or more where the ASCII character it stands for takes one. So what is
/// written is always the presentation's own spelling.
struct EncodedPresentations {
    /// How many input numbers have presentations kept, and how many each.
    static let slots = 64, perSlot = 4
    /// A class, so that looking through the kept presentations copies none.
    private final class Encoded {
        let state: PresentationState
        let members: [UInt8]
        /// ``EncodedPresentations/length(of:)`` of `state`.
        let length: Int

        init(state: PresentationState, members: [UInt8], length: Int) {
            (self.state, self.members, self.length) = (state, members, length)
        }
    }
    /// By input number modulo ``slots``, the latest first; none until the first is kept, so that an empty value
    /// allocates nothing.
    private var kept: [[Encoded]] = []

    /// The members of `state`, the presentation after the input numbered `input`.
    mutating func members(for state: PresentationState, input: Int) -> [UInt8] {
        if kept.isEmpty { kept = Array(repeating: [], count: Self.slots) }
        let slot = input % Self.slots
        let length = Self.length(of: state)
        if let found = kept[slot].first(where: { $0.state == state }), found.length == length { return found.members }
        let members = Self.encode(state)
        guard members.allSatisfy({ $0 < 0x80 }) else { return members }
        if kept[slot].count == Self.perSlot { kept[slot].removeLast() }
        kept[slot].insert(Encoded(state: state, members: members, length: length), at: 0)
        return members
    }

    /// The UTF-8 length of the names and titles of `state` (its visible stack is one of its stacks).
    private static func length(of state: PresentationState) -> Int {
        func length(_ stack: [Coordinated]) -> Int { stack.reduce(0) { $0 + $1.rawValue.utf8.count } }
        var total = length(state.stack) + (state.top?.rawValue.utf8.count ?? 0)
        for modal in state.modals { total += length(modal) }
        for tab in state.tabs { total += tab.title.utf8.count + length(tab.stack) }
        return total
    }

    /// `"stack":[...],"presentation":{...},"top":...`: the visible stack, the whole presentation (its members
    /// sorted by name, as ``JSONValue`` writes an object) and the visible module.
    private static func encode(_ state: PresentationState) -> [UInt8] {
        func names(_ stack: [Coordinated]) -> some Sequence<String> { stack.lazy.map(\.rawValue) }
        var line = TraceLine()
        line.add("stack", strings: names(state.visibleStack))
        line.add("presentation") { json in
            json.object {
                $0.member("modals", first: true)
                $0.append(UInt8(ascii: "["))
                for (index, modal) in state.modals.enumerated() {
                    if index > 0 { $0.append(UInt8(ascii: ",")) }
                    $0.strings(names(modal))
                }
                $0.append(UInt8(ascii: "]"))
                $0.member("selectedTab")
                if let selected = state.selectedTab { $0.integer(selected) } else { $0.literal("null") }
                $0.member("stack")
                $0.strings(names(state.stack))
                $0.member("tabs")
                $0.append(UInt8(ascii: "["))
                for (index, tab) in state.tabs.enumerated() {
                    if index > 0 { $0.append(UInt8(ascii: ",")) }
                    $0.object {
                        $0.member("stack", first: true)
                        $0.strings(names(tab.stack))
                        $0.member("title")
                        $0.string(tab.title)
                    }
                }
                $0.append(UInt8(ascii: "]"))
            }
        }
        if let top = state.top { line.add("top", top.rawValue) } else { line.add("top", json: .null) }
        return line.members
    }
}
