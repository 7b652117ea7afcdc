import FlowKit
import Testing

@testable import FlowTraces

/// Which request an event ends, and which experiment's variant a failure or a host's end is laid at, as
/// ``ExperimentReport/RoutedRequests`` reads a session: by `requestId` when the event has one, else by name and
/// depth among the requests without one, the last started first; a `hostEnded` ends the innermost request first,
/// then the exposures in the experiments' name order; an event about a request takes every exposure at its
/// depth, and a failure names the first in name order. They pin what the report said before the requests under
/// way and the exposures were indexed (so that a trace reports in time linear in its size).
struct RoutedRequestsTests {
    @Test func anEventWithAnIdEndsTheRequestOfThatIdWhateverTheOrder() {
        var routed = ExperimentReport.RoutedRequests()
        for id in 1...3 { #expect(routed.read(.handling(id: id, "create", "e\(id)", "v\(id)")).isEmpty) }

        // The oldest first, then the newest, then the middle one: each the request of its id.
        #expect(describe(routed.read(.failed(id: 1, "create", error: "one"))) == ["e1 v1 create: one"])
        #expect(describe(routed.read(.failed(id: 3, "create", error: "three"))) == ["e3 v3 create: three"])
        #expect(routed.read(.handled(id: 3, "create")).isEmpty, "ended already")
        #expect(describe(routed.read(.failed(id: 2, "create", error: "two"))) == ["e2 v2 create: two"])
        #expect(routed.read(.failed(id: 1, "create")).isEmpty, "ended already")
    }

    @Test func anIdAndANameEndOnlyRequestsStartedTheSameWay() {
        var routed = ExperimentReport.RoutedRequests()
        _ = routed.read(.handling(id: 7, "create", "e", "with-id"))
        _ = routed.read(.handling(id: nil, "create", "e", "without-id"))

        // The name ends the one without an id, though the one with an id has the same name and depth.
        #expect(describe(routed.read(.failed(id: nil, "create", error: "x"))) == ["e without-id create: x"])
        #expect(routed.read(.failed(id: nil, "create")).isEmpty)
        // An id ends no request without one, nor one of another id.
        _ = routed.read(.handling(id: nil, "create", "e", "without-id"))
        #expect(routed.read(.failed(id: 8, "create")).isEmpty)
        #expect(describe(routed.read(.failed(id: 7, "other", error: "y"))) == ["e with-id other: y"])
    }

    @Test func nestedRequestsOfOneNameWithoutIdsEndTheLastStartedAtTheirDepthFirst() {
        var routed = ExperimentReport.RoutedRequests()
        _ = routed.read(.handling(id: nil, "create", "e", "outer"))
        _ = routed.read(.handling(id: nil, "create", "e", "inner", depth: 1))
        _ = routed.read(.handling(id: nil, "create", "e", "innermost"))

        #expect(describe(routed.read(.failed(id: nil, "create", error: "a"))) == ["e innermost create: a"])
        #expect(describe(routed.read(.failed(id: nil, "create", error: "b"))) == ["e outer create: b"])
        #expect(routed.read(.failed(id: nil, "create")).isEmpty, "none left at depth 0")
        #expect(describe(routed.read(.failed(id: nil, "create", error: "c", depth: 1))) == ["e inner create: c"])
    }

    @Test func aHostThatEndedEndsTheInnermostRequestFirstThenTheExposuresInNameOrder() {
        var routed = ExperimentReport.RoutedRequests()
        for id in 1...4 { _ = routed.read(.handling(id: id, "r\(id)", "e\(id)", "v\(id)", depth: id - 1)) }
        _ = routed.read(.handled(id: 2, "r2"))
        _ = routed.read(.exposure("zeta", "z", depth: 9))
        _ = routed.read(.exposure("alpha", "a", depth: 8))
        _ = routed.read(.exposure("mid", "m", depth: 9))

        #expect(
            describe(routed.read(.hostEnded)) == [
                "e4 v4 r4: the host crashed", "e3 v3 r3: the host crashed", "e1 v1 r1: the host crashed",
                "alpha a -: the host crashed", "mid m -: the host crashed", "zeta z -: the host crashed",
            ])
        // Every one ended with the host.
        #expect(routed.read(.hostEnded).isEmpty)
        #expect(routed.read(.failed(id: 1, "r1")).isEmpty)
    }

    @Test func theNextRequestEventAtADepthTakesEveryExposureThereAndAFailureNamesTheFirstInNameOrder() {
        var routed = ExperimentReport.RoutedRequests()
        _ = routed.read(.exposure("zeta", "z", depth: 1))
        _ = routed.read(.exposure("alpha", "a", depth: 1))
        _ = routed.read(.exposure("mid", "m", depth: 2))
        // Exposed again, at another depth: only the last exposure awaits its request.
        _ = routed.read(.exposure("moved", "first", depth: 1))
        _ = routed.read(.exposure("moved", "again", depth: 3))

        #expect(describe(routed.read(.failed(id: 1, "create", error: "x", depth: 1))) == ["alpha a create: x"])
        #expect(routed.read(.failed(id: 2, "create", depth: 1)).isEmpty, "zeta's was taken with alpha's")
        // A request event that does not fail takes the exposures at its depth too.
        _ = routed.read(.handling(id: 3, "create", depth: 2))
        #expect(routed.read(.failed(id: 4, "create", depth: 2)).isEmpty)
        #expect(describe(routed.read(.failed(id: 5, "create", error: "y", depth: 3))) == ["moved again create: y"])
        // A failure that ends a request under way names the request's variant, not the exposure's.
        _ = routed.read(.exposure("alpha", "a", depth: 0))
        _ = routed.read(.handling(id: 6, "create", "e", "v", depth: 1))
        #expect(describe(routed.read(.failed(id: 6, "create", error: "z"))) == ["e v create: z"])
    }

    /// Many requests ended oldest first, then a host's end: the requests left end innermost first, each its
    /// own, however their storage was compacted as the others ended.
    @Test func manyRequestsEndedOldestFirstEachEndTheirOwn() {
        var routed = ExperimentReport.RoutedRequests()
        for id in 0..<1_000 { _ = routed.read(.handling(id: id, "create", "e", "v\(id)")) }

        for id in 0..<900 where id % 7 != 0 {
            #expect(describe(routed.read(.failed(id: id, "create", error: "x"))) == ["e v\(id) create: x"])
        }
        for id in 1_000..<1_010 { _ = routed.read(.handling(id: id, "create", "e", "v\(id)")) }

        let left = (0..<900).filter { $0 % 7 == 0 } + Array(900..<1_010)
        #expect(describe(routed.read(.hostEnded)) == left.reversed().map { "e v\($0) create: the host crashed" })
    }
}

// MARK: - Test Helpers

/// `failures` as `experiment variant request: error` lines, `-` for no request.
private func describe(
    _ failures: [(experiment: String, variant: String, failure: ExperimentReport.RequestFailure)]
) -> [String] {
    failures.map { "\($0.experiment) \($0.variant) \($0.failure.request ?? "-"): \($0.failure.error)" }
}

extension TraceEvent {
    /// A manager started on `request`, which experiment `experiment` routed to `variant` when both are given.
    fileprivate static func handling(
        id: Int?, _ request: String, _ experiment: String? = nil, _ variant: String? = nil, depth: Int = 0
    ) -> TraceEvent {
        var event = requestEvent(.handling, id: id, request, depth: depth)
        event["experiment"] = experiment.map(JSONValue.string)
        event["variant"] = variant.map(JSONValue.string)
        return event
    }

    /// `request` handled.
    fileprivate static func handled(id: Int?, _ request: String, depth: Int = 0) -> TraceEvent {
        requestEvent(.handled, id: id, request, depth: depth)
    }

    /// `request` failed with `error`.
    fileprivate static func failed(id: Int?, _ request: String, error: String = "", depth: Int = 0) -> TraceEvent {
        var event = requestEvent(.failed, id: id, request, depth: depth)
        event["error"] = .string(error)
        return event
    }

    /// The subject exposed to `experiment`'s `variant`, whose request is the next at `depth`.
    fileprivate static func exposure(_ experiment: String, _ variant: String, depth: Int) -> TraceEvent {
        let fields: [String: JSONValue] = [
            "subject": "s", "experiment": .string(experiment), "variant": .string(variant),
            "depth": .number(Double(depth)),
        ]
        return TraceEvent(.exposure, fields: fields)
    }

    /// A supervised run's host that crashed, with no plugin to lay it at.
    fileprivate static let hostEnded = TraceEvent(.hostEnded, fields: ["ending": "crash", "restarting": true])

    /// An event of `kind` about `request` at `depth`, with `id` as its `requestId` when given.
    private static func requestEvent(_ kind: Kind, id: Int?, _ request: String, depth: Int) -> TraceEvent {
        var event = TraceEvent(kind, fields: ["request": .string(request), "depth": .number(Double(depth))])
        event["requestId"] = id.map { .number(Double($0)) }
        return event
    }
}
