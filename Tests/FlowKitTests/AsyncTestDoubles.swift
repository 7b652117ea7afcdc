import FlowKit

// MARK: - Test Helpers for the lifetime and async service tests

/// What the tests' async managers and services await, and how they tell the test where they are.
///
/// ``signals`` carries what happened ("awaiting", "cancelled", "presented x"), so that a test awaits the
/// moment it needs instead of sleeping.
@MainActor
final class Gate: Sendable {
    /// What the managers and services report, in order.
    let signals: AsyncStream<String>
    private let signal: AsyncStream<String>.Continuation
    private var listeners: [AsyncStream<String>.Continuation] = []
    private var waiting: [CheckedContinuation<String, Never>] = []
    private var iterator: AsyncStream<String>.Iterator

    init() {
        (signals, signal) = AsyncStream<String>.makeStream()
        iterator = signals.makeAsyncIterator()
    }

    func report(_ what: String) { signal.yield(what) }

    /// A stream of the values ``feed(_:)`` gives from now on, for one manager to await in a loop;
    /// iterating it ends when the iterating task is cancelled.
    func listen() -> AsyncStream<String> {
        let (values, continuation) = AsyncStream<String>.makeStream()
        listeners.append(continuation)
        return values
    }

    /// Gives `value` to every listener.
    func feed(_ value: String) {
        for listener in listeners { listener.yield(value) }
    }

    /// Ends every listener's stream, as a feed that dries up: their loops end.
    func endListening() {
        for listener in listeners { listener.finish() }
        listeners.removeAll()
    }

    /// Waits until ``open(with:)``, ignoring cancellation like an await on a library that does not honour it.
    func wait() async -> String {
        report("awaiting")
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Lets every ``wait()`` return `value`.
    func open(with value: String) {
        for continuation in waiting { continuation.resume(returning: value) }
        waiting.removeAll()
    }

    /// The next signal.
    func next() async -> String? {
        var iterator = self.iterator
        defer { self.iterator = iterator }
        return await iterator.next(isolation: #isolation)
    }
}

extension FlowManager {
    /// The test's gate, set as the `gate` dependency.
    var gate: Gate {
        get throws { try coordinator.dependencies.require(.gate, hint: "set the gate") }
    }
}

/// Answers `.working`, waits for the gate in a task, then presents a module named after what the gate
/// opened with; reports "presented NAME" or "refused NAME", and its ends as "loader".
@MainActor
final class AwaitingManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let gate = try gate
        recordEnds(as: "loader")
        task {
            let name = await gate.wait()
            let shown = self.present(self.module(Coordinated(name)), style: .inline)
            gate.report("\(shown ? "presented" : "refused") \(name)")
        }
        return .working
    }
}

/// Presents `screen` and, in a task, shows each value the gate feeds in the module's content until the
/// task is cancelled; reports "listening", "showing VALUE" for each, then "cancelled" or "ended", and its
/// ends as "listener".
@MainActor
final class ListeningManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let gate = try gate
        recordEnds(as: "listener")
        let screen = self.module("screen")
        let values = gate.listen()
        task {
            gate.report("listening")
            for await value in values {
                screen.content = .string(value)
                gate.report("showing \(value)")
            }
            gate.report(Task.isCancelled ? "cancelled" : "ended")
        }
        return .present(screen, .inline)
    }
}

/// Answers `.working` and listens to the gate in a task, showing nothing: background work. Reports as
/// ``ListeningManager`` does, its ends as "background".
@MainActor
final class BackgroundManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let gate = try gate
        recordEnds(as: "background")
        let values = gate.listen()
        task {
            gate.report("listening")
            for await _ in values {}
            gate.report(Task.isCancelled ? "cancelled" : "ended")
        }
        return .working
    }
}

/// Answers `.working`; its task throws "offline" once the gate opens. Its ends are recorded as "failing".
@MainActor
final class FailingTaskManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let gate = try gate
        recordEnds(as: "failing")
        task {
            _ = await gate.wait()
            throw FlowError("offline")
        }
        return .working
    }
}

/// Presents two modules, `first` and `second`, inline while it starts, and answers `.finished`: the
/// modules hold it. Its ends are recorded as "pair".
@MainActor
final class TwoScreenManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        recordEnds(as: "pair")
        coordinator.present(self.module("first"), style: .inline, by: self)
        coordinator.present(self.module("second"), style: .inline, by: self)
        return .finished
    }
}

/// Presents `flash`, finishes itself and answers `.finished`, all while it starts. Ends as "flash".
@MainActor
final class SelfFinishingManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        recordEnds(as: "flash")
        coordinator.present(self.module("flash"), style: .inline, by: self)
        finish()
        return .finished
    }
}

/// Answers `.finished` at once. Ends as "quick".
@MainActor
final class QuickManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        recordEnds(as: "quick")
        return .finished
    }
}

/// Fails every request after recording its ends as "throwing".
@MainActor
final class ThrowingRecordingManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        recordEnds(as: "throwing")
        throw FlowError("no network")
    }
}

/// A service whose start and stop await; records them in the log as "NAME.start" and "NAME.stop".
@MainActor
final class AwaitingService: AsyncCoordinatorService {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func start(with coordinator: any FlowCoordinator) async throws {
        await Task.yield()
        log.append("\(name).start")
    }

    func stop() async {
        await Task.yield()
        log.append("\(name).stop")
    }
}

/// An async service whose start or stop (or both) never return on their own, nor honour cancellation:
/// the gate's ``Gate/open(with:)`` releases them, which a test does at its end.
@MainActor
final class StuckService: AsyncCoordinatorService {
    let gate: Gate
    let stuckStarting: Bool
    let log: Log

    init(gate: Gate, log: Log, stuckStarting: Bool = false) {
        self.gate = gate
        self.log = log
        self.stuckStarting = stuckStarting
    }

    func start(with coordinator: any FlowCoordinator) async throws {
        if stuckStarting { _ = await gate.wait() }
        log.append("stuck.start")
    }

    func stop() async {
        _ = await gate.wait()
        log.append("stuck.stop")
    }
}

/// An async service whose start throws "port 8080 is taken".
@MainActor
final class FailingService: AsyncCoordinatorService {
    func start(with coordinator: any FlowCoordinator) async throws { throw FlowError("port 8080 is taken") }
    func stop() async {}
}
