import FlowKit
import FlowKitTesting
import Testing

/// `FlowHarness.startAndWait()` and `restoreAndWait(_:)`: a service that sets what it provides only once
/// an await returns, tested as a host runs it.
@MainActor
struct FlowHarnessAsyncServiceTests {
    /// A harness routing `account.show` to `Account`, with an `Accounts` service, not started.
    private func harness() -> FlowHarness {
        let harness = Self.patientHarness()
        harness.route("account.show", to: "Account")
        harness.addService(named: "Accounts")
        return harness
    }

    @Test func startAndWaitReturnsOnceTheServicesHaveSetWhatTheyProvide() async throws {
        let harness = harness()

        let problems = await harness.startAndWait()

        #expect(problems.isEmpty)
        harness.send("account.show")
        #expect(harness.topModule?.content["user"] == "ada")
    }

    @Test func restoreAndWaitReplaysTheStepsOnceTheServicesHaveStarted() async throws {
        let walked = harness()
        await walked.startAndWait()
        walked.send("account.show")
        try walked.perform("rename", payload: ["to": "grace"])
        let saved = walked.snapshot()
        #expect(saved.services == ["AccountsService": ["user": "grace"]])

        let next = harness()
        let report = try await next.restoreAndWait(saved)

        #expect(report.isComplete, "\(report)")
        #expect(next.top == "account")
        #expect(next.topModule?.content["user"] == "grace", "the step met the service started, its state restored")
    }

    /// A snapshot `flowhost` saved names the service as the host does, `account.Accounts`: its state is found.
    @Test func aSnapshotTheHostSavedGivesTheServiceItsState() async throws {
        let walked = harness()
        await walked.startAndWait()
        walked.send("account.show")
        try walked.perform("rename", payload: ["to": "grace"])
        var saved = walked.snapshot()
        saved.services = ["account.Accounts": try #require(saved.services["AccountsService"])]

        let next = harness()
        try await next.restoreAndWait(saved)

        #expect(next.topModule?.content["user"] == "grace")
    }

    /// What the synchronous `restore` does, for comparison: the steps replay while the service still starts.
    @Test func restoreReplaysTheStepsBeforeAnAsyncServiceHasStarted() async throws {
        let walked = harness()
        await walked.startAndWait()
        walked.send("account.show")
        let saved = walked.snapshot()

        let next = harness()
        try next.restore(saved)

        #expect(next.topModule?.content["user"] == .null)
        await next.startAndWait()
        #expect(next.coordinator.dependencies[accounts]?.user == "ada", "set once the start was awaited")
    }

    @Test func aServiceThatFailsToStartIsAnIssueAndTheStepsReplayAllTheSame() async throws {
        let walked = harness()
        await walked.startAndWait()
        walked.send("account.show")
        let saved = walked.snapshot()
        let next = Self.patientHarness()
        next.route("account.show", to: "Account")
        next.addService(BrokenService())

        try await withKnownIssue {
            let report = try await next.restoreAndWait(saved)
            #expect(report.isComplete, "\(report)")
        } matching: { issue in
            issue.description.contains("BrokenService") && issue.description.contains("no network")
        }
        #expect(next.top == "account")
    }

    @Test func aStartThatTakesLongerThanTheTimeoutIsAProblemAndIsCancelled() async throws {
        let harness = FlowHarness(plugin: plugin)
        harness.coordinator.serviceTimeout = .milliseconds(50)
        let slow = SlowService()
        harness.addService(slow)

        let problems = await harness.startAndWait()

        #expect(
            problems.map(\.description) == [
                "service 'SlowService' did not start within 0.05 s; raise serviceTimeout if it needs longer"
            ])
        #expect(harness.events.map(\.kind).contains(.serviceProblem))
        var cancellations = slow.cancellations.makeAsyncIterator()
        #expect(await cancellations.next() != nil, "the start was cancelled")
    }

    @Test func stopAndWaitReturnsOnceTheAsyncServicesHaveStopped() async throws {
        let harness = Self.patientHarness()
        let flushing = FlushingService()
        harness.addService(flushing)
        await harness.startAndWait()

        harness.stop()
        #expect(!flushing.flushed, "stop() leaves it stopping in the background")
        let problems = await harness.stopAndWait()

        #expect(problems.isEmpty)
        #expect(flushing.flushed)
        #expect(harness.events.map(\.description).suffix(1) == ["service FlushingService stopped"])
    }
}

// MARK: - Test Helpers

extension FlowHarnessAsyncServiceTests {
    /// A harness whose services have ten minutes to start and stop, not the default 5 s: in a parallel run of
    /// the whole suite under ThreadSanitizer, the main actor, where a start resumes after its await, was held
    /// longer than 5 s.
    static func patientHarness() -> FlowHarness {
        let harness = FlowHarness(plugin: plugin)
        harness.coordinator.serviceTimeout = .seconds(600)
        return harness
    }
}

private let accounts = TypedDependencyKey<Accounts>("accounts")

/// What the `Accounts` service provides.
private struct Accounts: Sendable {
    var user: String
}

private let plugin = PluginDescription(
    name: "account", version: "1.0.0", managers: [ManagerFactory("Account", AccountManager.self)],
    services: [ServiceFactory("Accounts") { AccountsService() }])

/// Presents `account`, showing the user the `accounts` dependency names, with a `rename` action that renames
/// it through the service.
private final class AccountManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        let user = coordinator.dependencies[accounts].map { JSONValue.string($0.user) } ?? .null
        let rename = ModuleAction("rename") { module, payload in
            guard let service = self.coordinator.dependencies[accountsService], let name = payload["to"]?.string
            else {
                return nil
            }
            service.user = name
            module.content = ["user": .string(name)]
            return nil
        }
        return .present(self.module("account", content: ["user": user], actions: [rename]), .inline)
    }
}

private let accountsService = TypedDependencyKey<AccountsService>("accountsService")

/// Sets `accounts` once an await returns, as a service that opens a connection first would; its user survives
/// a snapshot.
@MainActor
private final class AccountsService: AsyncCoordinatorService, StateHandoff, @unchecked Sendable {
    var user = "ada"

    func start(with coordinator: any FlowCoordinator) async throws {
        await Task.yield()
        coordinator.setDependency(accountsService, self)
        coordinator.setDependency(accounts, Accounts(user: user))
    }
    func stop() async {}
    func exportState() -> JSONValue { ["user": .string(user)] }
    func importState(_ state: JSONValue) { user = state["user"]?.string ?? "ada" }
}

/// A service whose start throws.
@MainActor
private final class BrokenService: AsyncCoordinatorService {
    func start(with coordinator: any FlowCoordinator) async throws { throw FlowError("no network") }
    func stop() async {}
}

/// A service whose start sleeps for an hour, unless cancelled: `cancellations` says so.
@MainActor
private final class SlowService: AsyncCoordinatorService {
    let (cancellations, cancelled) = AsyncStream<Void>.makeStream()

    func start(with coordinator: any FlowCoordinator) async throws {
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            cancelled.yield()
            throw error
        }
    }
    func stop() async {}
}

/// A service whose stop flushes after an await.
@MainActor
private final class FlushingService: AsyncCoordinatorService {
    var flushed = false

    func start(with coordinator: any FlowCoordinator) async throws {}
    func stop() async {
        await Task.yield()
        flushed = true
    }
}
