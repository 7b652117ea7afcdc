import FlowKit
import Testing

/// Services that await: in order, in reverse, within `serviceTimeout`, and the synchronous ones unchanged.
@MainActor
struct AsyncServiceTests {
    /// For the tests of order rather than of the timeout: their services resume on the main actor, which
    /// other suites' tests hold while they wait for a process, at times for longer than the default 5 s.
    private static let noTimeout: Duration = .seconds(600)

    @Test func asyncServicesStartInOrderAndStopInReverseAmongSyncOnes() async {
        let log = Log()
        let coordinator = BaseFlowCoordinator(services: [
            RecordingService("first", log: log), AwaitingService("second", log: log), PlainService(log: log),
            AwaitingService("last", log: log),
        ])
        coordinator.serviceTimeout = Self.noTimeout

        #expect(await coordinator.startAndWait().isEmpty)
        #expect(coordinator.isRunning)
        #expect(await coordinator.stopAndWait().isEmpty)

        #expect(
            log.entries == [
                "first.start", "second.start", "plain.start", "last.start",
                "last.stop", "plain.stop", "second.stop", "first.stop",
            ])
        #expect(!coordinator.isRunning)
    }

    @Test func aServiceThatNeverStopsIsReportedByNameAfterTheTimeoutAndTheOthersStillStop() async {
        let log = Log()
        let gate = Gate()
        let coordinator = BaseFlowCoordinator(services: [
            AwaitingService("first", log: log), StuckService(gate: gate, log: log), RecordingService("last", log: log),
        ])
        // Started without a limit: a start that other suites' tests delay past 0.1 s would be a start that timed
        // out, and a service that never started is not said to stop.
        coordinator.serviceTimeout = Self.noTimeout
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        await coordinator.startAndWait()
        coordinator.serviceTimeout = .milliseconds(100)

        let problems = await coordinator.stopAndWait()

        let stuck = ServiceProblem(service: "StuckService", kind: .stopTimedOut(.milliseconds(100)))
        #expect(problems == [stuck])
        #expect(
            stuck.description
                == "service 'StuckService' did not stop within 0.1 s; raise serviceTimeout if it needs longer")
        #expect(log.entries.suffix(2) == ["last.stop", "first.stop"])
        #expect(
            events.suffix(3) == [
                .serviceStopped("RecordingService"), .serviceProblem(stuck), .serviceStopped("AwaitingService"),
            ])
        gate.open(with: "release")
    }

    @Test func aServiceThatFailsOrNeverStartsIsReportedAndTheNextOnesStart() async {
        let log = Log()
        let gate = Gate()
        let coordinator = BaseFlowCoordinator(services: [
            FailingService(), StuckService(gate: gate, log: log, stuckStarting: true),
            AwaitingService("last", log: log),
        ])
        coordinator.serviceTimeout = .milliseconds(100)

        let problems = await coordinator.startAndWait()

        #expect(
            problems.map(\.description) == [
                "service 'FailingService' failed to start: port 8080 is taken",
                "service 'StuckService' did not start within 0.1 s; raise serviceTimeout if it needs longer",
            ])
        #expect(log.entries == ["last.start"])
        gate.open(with: "release")
    }

    /// A service whose start threw is asked to stop all the same, since it may hold what it took before it
    /// failed, but no `serviceStopped` says it stopped: the host printed `service 'X' stopped` after `service
    /// 'X' failed to start` (found by a trial). Replaced, it is not said to stop either; its replacement is.
    @Test func aServiceThatFailedToStartIsAskedToStopButNotSaidToHaveStopped() async {
        let log = Log()
        let failing = FailingLoggedService(log: log)
        let coordinator = BaseFlowCoordinator(services: [failing, AwaitingService("last", log: log)])
        coordinator.serviceTimeout = Self.noTimeout
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }

        #expect(await coordinator.startAndWait().count == 1)
        await coordinator.stopAndWait()

        #expect(log.entries == ["failing.start", "last.start", "last.stop", "failing.stop"])
        #expect(!events.contains(.serviceStopped("FailingLoggedService")), "\(events)")
        #expect(events.contains(.serviceStopped("AwaitingService")))

        await coordinator.startAndWait()
        events.removeAll()
        let again = FailingLoggedService(log: log, fails: false)
        coordinator.replaceService(failing, with: again)
        await coordinator.serviceWorkDone()
        coordinator.replaceService(again, with: FailingLoggedService(log: log))
        await coordinator.serviceWorkDone()

        #expect(
            events == [
                .serviceStarted("FailingLoggedService"), .serviceStopped("FailingLoggedService"),
                .serviceProblem(
                    ServiceProblem(service: "FailingLoggedService", kind: .startFailed(FlowError("no connection")))),
            ])
    }

    /// The same when it is removed right after a synchronous `stop()`, whose stop of it runs in the background
    /// after the removal (found by a review).
    @Test func aServiceThatFailedToStartRemovedAfterAStopIsNotSaidToHaveStopped() async {
        let log = Log()
        let failing = FailingLoggedService(log: log)
        let coordinator = BaseFlowCoordinator(services: [failing])
        coordinator.serviceTimeout = Self.noTimeout
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        await coordinator.startAndWait()

        coordinator.stop()
        coordinator.removeService(failing)
        await coordinator.serviceWorkDone()

        #expect(log.entries == ["failing.start", "failing.stop"])
        #expect(!events.contains(.serviceStopped("FailingLoggedService")), "\(events)")
    }

    @Test func stoppingAndWaitingEndsTheWorkingManagersAndStopsChildrenFirst() async {
        let log = Log()
        let (parent, _) = BaseFlowCoordinator.withLog(
            [RequestRoute(.work): route("Work", WorkingManager.self)], services: [RecordingService("parent", log: log)])
        parent.setDependency(.log, log)
        let child = BaseFlowCoordinator(name: "child", services: [AwaitingService("child", log: log)])
        child.serviceTimeout = Self.noTimeout
        parent.openChild(child, style: .modal)
        parent.requestCoordination(.work, from: .app)

        await parent.stopAndWait()

        #expect(log.ends == ["work: its coordinator finished"])
        #expect(log.entries.filter { $0.hasSuffix(".stop") } == ["child.stop", "parent.stop"])
        #expect(!child.isRunning)
    }

    @Test func theSynchronousStartRunsAsyncServicesInTheBackgroundInOrderAfterTheSyncOnes() async {
        let log = Log()
        let gate = Gate()
        let coordinator = BaseFlowCoordinator(services: [
            ReportingService(gate: gate, log: log, name: "a"), AwaitingService("b", log: log),
            RecordingService("sync", log: log), ReportingService(gate: gate, log: log, name: "c"),
        ])

        coordinator.start()
        #expect(log.entries == ["sync.start"], "the async ones have not had a turn yet")
        #expect(await gate.next() == "a.start")
        #expect(await gate.next() == "c.start")
        #expect(log.entries == ["sync.start", "a.start", "b.start", "c.start"])

        coordinator.stop()
        #expect(log.entries.last == "sync.stop")
        #expect(await gate.next() == "c.stop")
        #expect(await gate.next() == "a.stop")
        #expect(log.entries.suffix(4) == ["sync.stop", "c.stop", "b.stop", "a.stop"])
    }

    @Test func replacingAnAsyncServiceStopsTheOldOneBeforeTheNewOneStartsWithItsState() async {
        let log = Log()
        let gate = Gate()
        let old = ReportingService(gate: gate, log: log, name: "old")
        let coordinator = BaseFlowCoordinator(services: [old])
        await coordinator.startAndWait()
        old.counter = 7
        let new = ReportingService(gate: gate, log: log, name: "new")

        #expect(coordinator.replaceService(old, with: new))
        #expect(await gate.next() == "old.start")
        #expect(await gate.next() == "old.stop")
        #expect(await gate.next() == "new.start")

        #expect(new.counter == 7)
        #expect(coordinator.services.first === new)
    }

    @Test func aRestoreReplacingAnAsyncServiceAwaitsItAndReportsAStartThatThrows() async {
        let log = Log()
        let gate = Gate()
        let old = ReportingService(gate: gate, log: log, name: "old")
        let coordinator = BaseFlowCoordinator(services: [old])
        coordinator.serviceTimeout = Self.noTimeout
        var events: [FlowEvent] = []
        coordinator.onEvent = { events.append($0) }
        await coordinator.startAndWait()
        #expect(await gate.next() == "old.start")
        events.removeAll()

        #expect(coordinator.replaceService(old, with: FailingService(), importing: nil))
        #expect(!events.contains(.serviceStarted("FailingService")), "not reported started before it ran")
        await coordinator.stopAndWait()

        #expect(await gate.next() == "old.stop")
        #expect(
            events.prefix(2) == [
                .serviceStopped("ReportingService"),
                .serviceProblem(
                    ServiceProblem(service: "FailingService", kind: .startFailed(FlowError("port 8080 is taken")))),
            ], "the old one stops before the new one starts, whose error is reported, not dropped")
    }

    @Test func aRestoreReplacingAnAsyncServiceGivesTheNewOneTheSavedStateAtOnce() async {
        let log = Log()
        let gate = Gate()
        let old = ReportingService(gate: gate, log: log, name: "old")
        let coordinator = BaseFlowCoordinator(services: [old])
        coordinator.serviceTimeout = Self.noTimeout
        await coordinator.startAndWait()
        #expect(await gate.next() == "old.start")
        let new = ReportingService(gate: gate, log: log, name: "new")

        #expect(coordinator.replaceService(old, with: new, importing: .number(3)))
        #expect(new.counter == 3, "taken before the call returns, as a host blames a crash in importState on it")
        #expect(await gate.next() == "old.stop")
        #expect(await gate.next() == "new.start")
        #expect(log.entries == ["old.start", "old.stop", "new.start"])
        await coordinator.stopAndWait()
    }

    /// A reload's replacement of an async service handed the state over in the background, after the old one
    /// stopped: a snapshot taken meanwhile (a host's restart at its cap of generations saves one) saved the new
    /// service's empty state.
    @Test func aReloadReplacingAnAsyncServiceHandsTheStateOverAtOnce() async {
        let log = Log()
        let gate = Gate()
        let old = ReportingService(gate: gate, log: log, name: "old")
        old.counter = 5
        let coordinator = BaseFlowCoordinator(services: [old])
        coordinator.serviceTimeout = Self.noTimeout
        await coordinator.startAndWait()
        #expect(await gate.next() == "old.start")
        let new = ReportingService(gate: gate, log: log, name: "new")

        #expect(coordinator.replaceService(old, with: new))
        #expect(new.counter == 5, "a snapshot taken before the background work ran saves the state handed over")
        #expect(log.entries == ["old.start"], "the stop and the start are still to come")
        await coordinator.serviceWorkDone()
        #expect(log.entries == ["old.start", "old.stop", "new.start"])
        await coordinator.stopAndWait()
    }

    @Test func serviceWorkDoneAwaitsTheReplacementsQueuedInTheBackground() async {
        let log = Log()
        let gate = Gate()
        let first = ReportingService(gate: gate, log: log, name: "first")
        let coordinator = BaseFlowCoordinator(services: [first])
        coordinator.serviceTimeout = Self.noTimeout
        await coordinator.serviceWorkDone()  // nothing to await
        coordinator.start()
        let second = ReportingService(gate: gate, log: log, name: "second")
        #expect(coordinator.replaceService(first, with: second, importing: nil))

        await coordinator.serviceWorkDone()
        #expect(log.entries == ["first.start", "first.stop", "second.start"])
        await coordinator.stopAndWait()
    }
}

// MARK: - Test Helpers

/// An async service that also reports "NAME.start" and "NAME.stop" through the gate, so that a test can
/// wait for it; hands its counter over on a reload.
@MainActor
private final class ReportingService: AsyncCoordinatorService, StateHandoff {
    let gate: Gate
    let log: Log
    let name: String
    var counter = 0

    init(gate: Gate, log: Log, name: String = "reporting") {
        self.gate = gate
        self.log = log
        self.name = name
    }

    func start(with coordinator: any FlowCoordinator) async throws {
        log.append("\(name).start")
        gate.report("\(name).start")
    }

    func stop() async {
        log.append("\(name).stop")
        gate.report("\(name).stop")
    }

    func exportState() -> JSONValue { .number(Double(counter)) }
    func importState(_ state: JSONValue) { counter = state.int ?? 0 }
}

/// An async service whose start throws (or, made with `fails: false`, does not), logging "failing.start" and
/// "failing.stop".
@MainActor
private final class FailingLoggedService: AsyncCoordinatorService {
    let log: Log
    let fails: Bool

    init(log: Log, fails: Bool = true) {
        self.log = log
        self.fails = fails
    }

    func start(with coordinator: any FlowCoordinator) async throws {
        log.append("failing.start")
        if fails { throw FlowError("no connection") }
    }

    func stop() async { log.append("failing.stop") }
}
