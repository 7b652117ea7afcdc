import Dispatch
import Glibc
import Synchronization
import Testing

@testable import LineEditing

/// Tab asks the completer on the line editor's thread. A file name's completion reads a directory, which a
/// hung filesystem can stall; lines printed above the prompt meanwhile (a reload, the supervisor) must not
/// wait for it, nor must the thread printing them.
struct LineEditorCompletionTests {
    @Test func aLinePrintedWhileTheCompleterWorksIsNotHeldBackByIt() throws {
        let terminal = try PseudoTerminal()
        let opened = LineEditor(input: terminal.slave, output: terminal.slave, historyFile: nil, warn: { _ in })
        let editor = try #require(opened)
        defer { editor.close() }
        let completer = StalledCompleter()
        editor.completer = completer
        // Queues of their own, which Dispatch gives threads of their own: these block, and the cooperative
        // pool and the shared queues are busy with other tests.
        let line = Mutex<String?>(nil)
        let read = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test.reader").async {
            let typed = editor.readLineBlocking(prompt: "> ")
            line.withLock { $0 = typed }
            read.signal()
        }
        try Self.waitFor("> ", on: terminal)

        try Self.type("save x\t", into: terminal)
        try #require(completer.asked.wait(timeout: .now() + 10) == .success, "Tab asked the completer")
        let printed = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test.printer").async {
            editor.printAbove(["reloaded plugin 'settings': generation 2"])
            printed.signal()
        }
        let printedMeanwhile = printed.wait(timeout: .now() + 5) == .success
        completer.release.signal()

        #expect(printedMeanwhile, "the line waited for the completer")
        try Self.waitFor("generation 2", on: terminal)
        try Self.type("\r", into: terminal)
        try #require(read.wait(timeout: .now() + 10) == .success, "Enter ended the line")
        #expect(line.withLock { $0 } == "save x")
    }

    private static func type(_ text: String, into terminal: PseudoTerminal) throws {
        let bytes = Array(text.utf8)
        guard write(terminal.master, bytes, bytes.count) == bytes.count else {
            throw TestFailure("write: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads the terminal's output until `text` has appeared, for at most ten seconds.
    private static func waitFor(_ text: String, on terminal: PseudoTerminal) throws {
        var output: [UInt8] = []
        var descriptor = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
        let deadline = DispatchTime.now() + 10
        while !String(decoding: output, as: UTF8.self).contains(text) {
            guard DispatchTime.now() < deadline, poll(&descriptor, 1, 100) >= 0 else {
                throw TestFailure("no '\(text)' on the terminal, only: \(String(decoding: output, as: UTF8.self))")
            }
            guard descriptor.revents & Int16(POLLIN) != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = read(terminal.master, &buffer, buffer.count)
            if count > 0 { output += buffer[..<count] }
        }
    }
}

/// A completer that stays at work, as on a hung filesystem, until released.
private final class StalledCompleter: LineCompleter {
    /// Signalled when Tab asks.
    let asked = DispatchSemaphore(value: 0)
    /// Signal to let the answer (no candidates) go.
    let release = DispatchSemaphore(value: 0)

    func completions(before textBeforeCursor: String) -> LineCompletion {
        asked.signal()
        release.wait()
        return LineCompletion(wordStart: textBeforeCursor.count, candidates: [])
    }
}
