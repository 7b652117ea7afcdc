import FlowHost
import FlowKit
import HostSupport

/// `expect`: the checks a script makes of what is on screen and of what became of its last request.
///
/// Each form answers ``HostShell/Status/ok`` or ``HostShell/Status/expectationFailed(_:)`` with one line
/// saying what is there and what was expected; a malformed `expect` is an error with its usage.
extension HostShell {
    func expect(_ arguments: String) throws(FlowError) -> Status {
        let (what, rest) = arguments.splitFirstWord()
        switch what {
        case "top": return try expectTop(rest)
        case "title": return try expectTitle(rest)
        case "stack": return try expectStack(rest)
        case "modals": return try expectModals(rest)
        case "tabs": return try expectTabs(rest)
        case "no" where rest == "tabs": return expectNoTabs()
        case "content": return try expectContent(rest)
        case "outcome": return try expectOutcome(rest)
        default:
            // The word mistyped, as for a command, with "did you mean" the nearest; `no tab` is read whole.
            let word = what == "no" ? arguments : what
            let guess = Suggestion.closest(to: word, among: Self.expectations).map { "did you mean '\($0)'? " }
            throw FlowError(
                "unknown expectation '\(word)'; \(guess ?? "")expect \(Self.expectations.dropLast().joined(separator: ", ")) or \(Self.expectations.last!)"
            )
        }
    }

    /// What `expect` checks, as its first word (or two) is written.
    nonisolated static let expectations = ["top", "title", "stack", "modals", "tabs", "no tabs", "content", "outcome"]

    /// The words Tab offers after `expect`: the first of each expectation, once.
    nonisolated static let expectationFirstWords: [String] = expectations.reduce(into: []) { words, expectation in
        let first = String(expectation.prefix { $0 != " " })
        if !words.contains(first) { words.append(first) }
    }

    private var state: PresentationState { host.coordinator.router.state }

    private func failed(_ what: String, is actual: String, expected: String, verb: String = "is") -> Status {
        .expectationFailed("expectation failed: \(what) \(verb) \(actual), expected \(expected)")
    }

    // MARK: - The presentation

    /// `expect top MODULE`: the visible module.
    private func expectTop(_ expected: String) throws(FlowError) -> Status {
        guard !expected.isEmpty else { throw FlowError("usage: expect top MODULE") }
        let actual = state.top?.rawValue ?? "(nothing)"
        return actual == expected ? .ok : failed("top", is: "'\(actual)'", expected: "'\(expected)'")
    }

    /// `expect title TEXT`: the visible module's title, the whole rest of the line.
    private func expectTitle(_ expected: String) throws(FlowError) -> Status {
        guard !expected.isEmpty else { throw FlowError("usage: expect title TEXT") }
        guard let top = host.coordinator.router.top else {
            return failed("title", is: "nothing (nothing is presented)", expected: "'\(expected)'")
        }
        return top.title == expected ? .ok : failed("title", is: "'\(top.title)'", expected: "'\(expected)'")
    }

    /// `expect stack A > B > C`: the visible navigation stack, bottom first (see
    /// ``PresentationState/visibleStack``); `(empty)` when nothing is presented.
    private func expectStack(_ arguments: String) throws(FlowError) -> Status {
        let names = arguments.split(separator: ">", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
        guard !names.contains(where: \.isEmpty) else { throw FlowError("usage: expect stack A > B > C (bottom first)") }
        let expected = names == ["(empty)"] ? [] : names
        let actual = state.visibleStack.map(\.rawValue)
        return actual == expected
            ? .ok : failed("stack", is: "'\(Self.path(actual))'", expected: "'\(Self.path(expected))'")
    }

    private static func path(_ names: [String]) -> String {
        names.isEmpty ? "(empty)" : names.joined(separator: " > ")
    }

    /// `expect modals N`: how many modal layers are presented.
    private func expectModals(_ arguments: String) throws(FlowError) -> Status {
        guard let expected = Int(arguments), expected >= 0 else {
            throw FlowError("usage: expect modals N (a count from 0), got '\(arguments)'")
        }
        let modals = state.modals
        guard modals.count != expected else { return .ok }
        let stacks = modals.map { "'\(Self.path($0.map(\.rawValue)))'" }.joined(separator: ", ")
        return failed("modals", is: "\(modals.count)\(modals.isEmpty ? "" : " (\(stacks))")", expected: "\(expected)")
    }

    /// `expect tabs 'Items' 'Settings'*`: the tab titles in order, `*` after the selected one.
    private func expectTabs(_ arguments: String) throws(FlowError) -> Status {
        let expected = try Self.tabs(in: arguments)
        let actual = presentedTabs
        return actual == expected
            ? .ok : failed("tabs", is: Self.describe(actual), expected: Self.describe(expected), verb: "are")
    }

    /// `expect no tabs`.
    private func expectNoTabs() -> Status {
        let actual = presentedTabs
        return actual.isEmpty
            ? .ok : .expectationFailed("expectation failed: tabs are \(Self.describe(actual)), expected none")
    }

    /// The tabs on screen, as an expectation would list them.
    private var presentedTabs: [TabExpectation] {
        let state = self.state
        return state.tabs.enumerated().map { TabExpectation(title: $1.title, isSelected: $0 == state.selectedTab) }
    }

    private struct TabExpectation: Equatable {
        var title: String
        var isSelected: Bool
    }

    private static func describe(_ tabs: [TabExpectation]) -> String {
        tabs.isEmpty ? "none" : tabs.map { "'\($0.title)'\($0.isSelected ? "*" : "")" }.joined(separator: " ")
    }

    /// Parses `'A' 'B'* 'C'`: titles in single quotes, exactly one followed by `*`.
    private static func tabs(in text: String) throws(FlowError) -> [TabExpectation] {
        let usage = FlowError(
            "usage: expect tabs 'TITLE'... with * after the selected one, e.g. expect tabs 'Items'* 'Settings'")
        var tabs: [TabExpectation] = []
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace {
                rest = rest.dropFirst()
                continue
            }
            guard first == "'", let close = rest.dropFirst().firstIndex(of: "'") else { throw usage }
            let title = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            let isSelected = rest.first == "*"
            if isSelected { rest = rest.dropFirst() }
            guard rest.first?.isWhitespace ?? true else { throw usage }
            tabs.append(TabExpectation(title: title, isSelected: isSelected))
        }
        guard !tabs.isEmpty, tabs.filter(\.isSelected).count == 1 else { throw usage }
        return tabs
    }

    // MARK: - Content

    /// `expect content PATH JSON`: the value at a dotted PATH of the visible module's content.
    private func expectContent(_ arguments: String) throws(FlowError) -> Status {
        let (path, json) = arguments.splitFirstWord()
        guard !path.isEmpty, !json.isEmpty else { throw FlowError("usage: expect content PATH JSON") }
        let expected: JSONValue
        do {
            expected = try JSONValue(parsing: json)
        } catch {
            throw FlowError("expect content \(path): the expected value is not JSON: \(error)")
        }
        guard let top = host.coordinator.router.top else {
            return .expectationFailed("expectation failed: nothing is presented, expected content \(path) \(expected)")
        }
        guard let actual = top.content.value(atPath: path) else {
            return .expectationFailed(
                "expectation failed: the content of '\(top.name)' has nothing at '\(path)': \(Self.missing(path, in: top.content))"
            )
        }
        return actual == expected
            ? .ok : failed("content \(path) of '\(top.name)'", is: "\(actual)", expected: "\(expected)")
    }

    /// Where `path` stops leading anywhere in `content`, and what is there instead.
    private static func missing(_ path: String, in content: JSONValue) -> String {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var found: [String] = []
        var value = content
        for component in components {
            guard let next = value.value(atPath: component) else { break }
            found.append(component)
            value = next
        }
        let place = found.isEmpty ? "the content" : "'\(found.joined(separator: "."))'"
        return "\(place) is \(shape(of: value))"
    }

    /// "an object with keys a, b", "an array of 3 elements", "a string".
    private static func shape(of value: JSONValue) -> String {
        switch value {
        case .object(let members):
            members.isEmpty ? "an empty object" : "an object with keys \(members.keys.sorted().joined(separator: ", "))"
        case .array(let elements): "an array of \(counted(elements.count, "element"))"
        case .null: "null"
        default: "a \(value.typeName)"
        }
    }

    // MARK: - Outcome

    /// `expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] |
    /// cancelled`: what became of the last request a command sent, see ``lastOutcome``. A request a guard
    /// redirected is followed to its end: `redirected` while it is held, then the outcome it had when it
    /// was resumed, or `cancelled` when its redirect was.
    private func expectOutcome(_ arguments: String) throws(FlowError) -> Status {
        let (word, rest) = arguments.splitFirstWord()
        let (preposition, name) = rest.splitFirstWord()
        let matches: (ShellOutcome) -> Bool
        switch (word, rest) {
        case ("handled", ""): matches = { $0.outcome?.isHandled == true }
        // The rest of the line: an experiment's variant is reported as "catalog.CreateItem [flow:classic]". A
        // child flow's manager as its `handled by` line names it (`catalog.CreateForm`), or as FlowKit does.
        case ("handled", _) where preposition == "by" && !name.isEmpty:
            matches = { [host] in
                guard case .handled(let manager)? = $0.outcome else { return false }
                return manager == name || host.userFacingManagerName(manager) == name
            }
        case ("unhandled", ""): matches = { $0.outcome == .unhandled }
        case ("queued", ""): matches = { $0.outcome?.isQueued == true }
        case ("failed", ""):
            matches = {
                if case .failed? = $0.outcome { return true }
                return false
            }
        case ("redirected", ""): matches = { $0.outcome?.isRedirected == true }
        case ("redirected", _) where preposition == "to" && !name.isEmpty:
            matches = {
                if case .redirected(let held)? = $0.outcome { return held.redirect.name.rawValue == name }
                return false
            }
        case ("cancelled", ""):
            matches = {
                if case .cancelled = $0 { return true }
                return false
            }
        default:
            // A mistyped outcome gets the one meant, as a mistyped expectation does.
            let outcomes = ["handled", "unhandled", "queued", "failed", "redirected", "cancelled"]
            let guess =
                outcomes.contains(word)
                ? nil
                : Suggestion.closest(to: word, among: outcomes).map {
                    "unknown outcome '\(word)'; did you mean '\($0)'? "
                }
            throw FlowError(
                (guess ?? "")
                    + "usage: expect outcome handled [by MANAGER] | unhandled | queued | failed | redirected [to REQUEST] | cancelled"
            )
        }
        let expected = rest.isEmpty ? word : "\(word) \(preposition) \(name)"
        guard let lastOutcome else {
            return .expectationFailed("expectation failed: the last command sent no request, expected '\(expected)'")
        }
        let outcome = heldFates.resolve(lastOutcome)
        guard !matches(outcome) else { return .ok }
        guard case .handled(let manager)? = outcome.outcome else {
            return failed("outcome", is: "'\(outcome)'", expected: "'\(expected)'")
        }
        return failed("outcome", is: "'handled by \(host.userFacingManagerName(manager))'", expected: "'\(expected)'")
    }
}
