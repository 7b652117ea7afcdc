import Testing

@testable import FlowShell
@testable import LineEditing

/// What each key does to the line being typed: editing, Enter, Ctrl-C and Ctrl-D, history, completion.
struct LineEditStateTests {
    @Test func typedKeysEditTheLineAndEnterSubmitsIt() {
        var state = LineEditState()

        let effects = state.type(.text("stck"), .left, .left, .text("a"), .end, .enter)

        #expect(effects.last == .submit("stack"))
        #expect(state.buffer.isEmpty, "the next line starts empty")
    }

    @Test func controlAAndControlEMoveToTheEnds() {
        var state = LineEditState()

        _ = state.type(.text("tats"), .home, .text("s"), .end, .text(" "))

        #expect(state.buffer.text == "stats ")
    }

    @Test func controlCAbandonsTheLine() {
        var state = LineEditState()

        let effects = state.type(.text("bogus"), .interrupt)

        #expect(effects.last == .cancel)
        #expect(state.buffer.isEmpty)
    }

    @Test func controlDEndsOnlyAnEmptyLineAndOtherwiseDeletesUnderTheCursor() {
        var state = LineEditState()

        #expect(state.type(.text("ab"), .home, .endOfFile).last == .redraw)
        #expect(state.buffer.text == "b")
        #expect(state.type(.end, .endOfFile).last == .bell)
        #expect(state.type(.deleteToStart, .endOfFile).last == .endOfFile)
    }

    @Test func upAndDownBrowseTheHistoryAndReturnToTheDraft() {
        var state = LineEditState(history: LineHistory(["stats", "stack"]))

        _ = state.type(.text("sh"), .up)
        #expect(state.buffer.text == "stack")
        _ = state.type(.up)
        #expect(state.buffer.text == "stats")
        #expect(state.type(.up).last == .bell, "nothing older")
        _ = state.type(.down, .down)
        #expect(state.buffer.text == "sh")
        #expect(state.buffer.cursor == 2)
        #expect(state.type(.down).last == .bell)
    }

    @Test func aRecalledEntryCanBeEditedAndSubmitted() {
        var state = LineEditState(history: LineHistory(["act submit {\"user\": \"ada\"}"]))

        let effects = state.type(.up, .left, .left, .backspace, .backspace, .backspace, .text("grace"), .enter)

        #expect(effects.last == .submit("act submit {\"user\": \"grace\"}"))
    }

    @Test func tabCompletesTheOnlyCandidateWithASpace() {
        var state = LineEditState()

        _ = state.type(.text("dis"), .tab, completer: completer)

        #expect(state.buffer.text == "dismiss ")
    }

    @Test func tabCompletesTheCommonPrefixThenASecondTabListsTheCandidates() {
        var state = LineEditState()

        #expect(state.type(.text("st"), .tab, completer: completer).last == .redraw)
        #expect(state.buffer.text == "sta")
        #expect(state.type(.tab, completer: completer).last == .list(["stack", "stats"]))
        #expect(state.type(.text("c"), .tab, completer: completer).last == .redraw)
        #expect(state.buffer.text == "stack ")
    }

    @Test func aFirstTabThatAddsNothingRingsTheBell() {
        var state = LineEditState()

        #expect(state.type(.text("sta"), .tab, completer: completer).last == .bell)
        #expect(state.type(.text("x"), .tab, completer: completer).last == .bell, "no candidates")
    }

    @Test func completionReplacesOnlyTheWordBeforeTheCursor() {
        var state = LineEditState()

        _ = state.type(.text("send catalog.c {}"), .wordLeft, .left, .tab, completer: completer)

        #expect(state.buffer.text == "send catalog.create  {}")
        #expect(state.buffer.cursor == 20)
    }

    @Test func aCandidateEndingInASlashIsCompletedWithoutASpaceToGoOnTyping() {
        let links = HostShell.Completer(requests: [], actions: [], modules: [], plugins: [], links: ["demo://items/"])
        var state = LineEditState()

        _ = state.type(.text("open d"), .tab, completer: links)

        #expect(state.buffer.text == "open demo://items/")
        _ = state.type(.text("2"), .enter)
    }

    private let completer = HostShell.Completer(
        requests: ["catalog.create", "settings.about"], actions: [], modules: [], plugins: [])
}

// MARK: - Test Helpers

extension LineEditState {
    /// Handles `keys` in order; returns the effect of each.
    fileprivate mutating func type(_ keys: TerminalKey..., completer: (any LineCompleter)? = nil) -> [Effect] {
        keys.map { handle($0, completion: $0 == .tab ? completer?.completions(before: textBeforeCursor) : nil) }
    }
}
