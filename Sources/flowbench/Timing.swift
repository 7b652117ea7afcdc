/// Timing in one run: each pair of measurements interleaved round by round, so that noise on this shared
/// machine touches both alike, and each one's best round kept.
@MainActor
enum Timing {
    /// Whether ``nanoseconds(_:_:)`` warms up first; off for counting instructions, so that N requests are
    /// exactly N calls.
    static var warmsUp = true

    /// Nanoseconds per call of `body`, over `iterations` calls after a warm-up.
    static func nanoseconds(_ iterations: Int, _ body: () -> Void) -> Double {
        if warmsUp { for _ in 0..<min(iterations, 10_000) { body() } }
        let elapsed = ContinuousClock().measure { for _ in 0..<iterations { body() } }
        return elapsed.nanoseconds / Double(iterations)
    }

    /// Nanoseconds per call of `body`, calling it in ever larger batches (after a warm-up batch) until one
    /// batch takes at least `budget`: for paths whose cost varies by orders of magnitude.
    static func nanoseconds(within budget: Duration = .milliseconds(40), _ body: () -> Void) -> Double {
        body()
        var count = 1
        let clock = ContinuousClock()
        while true {
            let elapsed = clock.measure { for _ in 0..<count { body() } }
            if elapsed >= budget || count >= 1 << 24 { return elapsed.nanoseconds / Double(count) }
            count *= 2
        }
    }

    /// The best of `rounds` rounds of `measured` and of `baseline`, interleaved: (measured, baseline).
    static func pair(rounds: Int = 5, _ measured: () -> Double, _ baseline: () -> Double) -> (Double, Double) {
        var best = (Double.infinity, Double.infinity)
        for _ in 0..<rounds {
            best.0 = min(best.0, measured())
            best.1 = min(best.1, baseline())
        }
        return best
    }
}

extension Duration {
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    var milliseconds: Double { nanoseconds / 1e6 }
}
