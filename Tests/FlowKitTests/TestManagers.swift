import FlowKit

// MARK: - Test Helpers shared by the FlowKit tests

extension CoordinationRequestName {
    static let showList: Self = "list.show"
    static let showDetail: Self = "detail.show"
    static let work: Self = "work"
    static let needsStore: Self = "needs.store"
}

extension DependencyKey {
    static let store: Self = "store"
    /// Where the test managers record what they see: a ``Log`` set as a dependency by each test.
    static let log: Self = "log"
    /// What the test's async managers await: a ``Gate`` set as a dependency by each test that has them.
    static let gate: Self = "gate"
}

/// The same keys, typed: readers get a ``Log`` or a ``Gate`` back without a cast.
extension TypedDependencyKey where Value == Log {
    static let log = TypedDependencyKey(.log)
}

extension TypedDependencyKey where Value == Gate {
    static let gate = TypedDependencyKey(.gate)
}

extension FlowManager {
    /// The test's log, set as the `log` dependency.
    var log: Log? { coordinator.dependencies[.log] }
}

/// A manager that records, in the log it found when it started, each end it is told of as "LABEL: reason".
@MainActor
class EndRecordingManager: FlowManager {
    private var endLog: Log?
    private var label = ""

    /// Records this manager's ends under `label` from now on.
    func recordEnds(as label: String) {
        endLog = log
        self.label = label
    }

    override func didEnd(_ reason: ManagerEndReason) {
        endLog?.ends.append("\(label): \(reason)")
    }
}

/// Presents a module named after the request's `module` payload member (default "screen"), with `style`;
/// records its ends under the module's name.
@MainActor
final class PresentingManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log?.managers.append(Weak(self as FlowManager))
        let name = Coordinated(request.payload["module"]?.string ?? "screen")
        recordEnds(as: name.rawValue)
        let style: PresentationStyle =
            switch request.payload["style"]?.string {
            case "modal": .modal
            case "root": .root
            case let title? where title.hasPrefix("tab:"): .tab(String(title.dropFirst(4)))
            default: .inline
            }
        return .present(self.module(name, content: .object(["context": .object(context.values)])), style)
    }
}

/// Keeps working until told to finish; reports its instances weakly and its ends as "work".
@MainActor
final class WorkingManager: EndRecordingManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log?.managers.append(Weak(self as FlowManager))
        recordEnds(as: "work")
        return .working
    }
}

/// Fails every request.
@MainActor
final class ThrowingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        throw FlowError("no network")
    }
}

/// Needs the store dependency; records the order it saw requests in.
@MainActor
final class StoreManager: FlowManager {
    override class var requirements: [DependencyKey] { [.store] }

    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        log?.append("store \(request.payload["n"]?.int ?? -1)")
        return .finished
    }
}

/// Counts requests per submitter, checking each submitter's sequence numbers arrive in order.
@MainActor
final class CountingManager: FlowManager {
    override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
        guard let log else { throw FlowError("no log") }
        log.count += 1
        let sequence = request.payload["seq"]?.int ?? -1
        if let last = log.lastBySubmitter[module.rawValue], last >= sequence { log.outOfOrder += 1 }
        log.lastBySubmitter[module.rawValue] = sequence
        return .finished
    }
}

/// Records what happens to it, in a log shared by the services of a test.
@MainActor
final class RecordingService: CoordinatorServiceLifeCycleProtocol {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func start(with coordinator: any FlowCoordinator) { log.append("\(name).start") }
    func stop() { log.append("\(name).stop") }
    func willEnterBackground() { log.append("\(name).willEnterBackground") }
    func didEnterBackground() { log.append("\(name).didEnterBackground") }
    func willEnterForeground() { log.append("\(name).willEnterForeground") }
    func didBecomeActive() { log.append("\(name).didBecomeActive") }
    func willTerminate() { log.append("\(name).willTerminate") }
}

/// A plain service that hears no lifecycle events.
@MainActor
final class PlainService: CoordinatorServiceProtocol {
    let log: Log
    init(log: Log) { self.log = log }
    func start(with coordinator: any FlowCoordinator) { log.append("plain.start") }
    func stop() { log.append("plain.stop") }
}

/// Provides a context holding the signed-in user.
@MainActor
final class SessionService: ContextProviderProtocol {
    var context = CoordinatorContext(["user": "ada"])
    func start(with coordinator: any FlowCoordinator) {}
    func stop() {}
}

/// What a test's managers and services saw.
@MainActor
final class Log: Sendable {
    private(set) var entries: [String] = []
    var managers: [Weak<FlowManager>] = []
    var count = 0
    var outOfOrder = 0
    var lastBySubmitter: [String: Int] = [:]
    /// What ``EndRecordingManager``s were told when they ended, in order.
    var ends: [String] = []

    func append(_ entry: String) { entries.append(entry) }
}

struct Weak<T: AnyObject> {
    weak var object: T?
    init(_ object: T) { self.object = object }
}

extension BaseFlowCoordinator {
    /// A started coordinator with `mapping` and a fresh log dependency.
    static func withLog(
        _ mapping: RequestCoordinatorMappingDictionary, services: [any CoordinatorServiceProtocol] = []
    ) -> (BaseFlowCoordinator, Log) {
        let coordinator = BaseFlowCoordinator(mapping: mapping, services: services)
        let log = Log()
        coordinator.setDependency(.log, log)
        coordinator.start()
        return (coordinator, log)
    }
}

func route<M: RequestCoordinatorManager>(_ name: String, _ type: M.Type) -> ManagerFactory {
    ManagerFactory(name, type)
}
