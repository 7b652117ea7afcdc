import Glibc

/// The statistics an experiment report needs, written out here: the host depends on no package.
///
/// Each is the textbook formula; `Tests/FlowHostTests/StatisticsTests.swift` checks them against figures
/// worked out by hand and against closed forms.
package enum Statistics {
    /// The two-sided 95% quantile of the standard normal distribution: Φ⁻¹(0.975).
    package static let z95 = 1.959_963_984_540_054

    /// Φ(x), the standard normal distribution function: `erfc(-x / √2) / 2`.
    package static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// The Wilson score interval for a proportion: `successes` out of `trials`, at `z` (95% by default).
    ///
    /// With p̂ = successes / trials and n = trials, the bounds are
    /// `(p̂ + z²/2n ± z √(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)`. Unlike p̂ ± z·se it stays within [0, 1]
    /// and is honest for small samples and for 0% or 100%. No trials give [0, 1].
    package static func wilsonInterval(successes: Int, trials: Int, z: Double = z95) -> (lower: Double, upper: Double) {
        guard trials > 0 else { return (0, 1) }
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z * z
        let center = p + z2 / (2 * n)
        let spread = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        let denominator = 1 + z2 / n
        // At 0% the lower bound is 0 and at 100% the upper is 1, exactly: computed, 100% gave 0.9999999999999998.
        return (
            successes == 0 ? 0 : max(0, (center - spread) / denominator),
            successes == trials ? 1 : min(1, (center + spread) / denominator)
        )
    }

    /// The two-proportion z-test with a pooled proportion: is the second proportion different from the
    /// first?
    ///
    /// `z = (p̂₂ − p̂₁) / √(p̄(1 − p̄)(1/n₁ + 1/n₂))`, with p̄ the proportion of both samples together, and
    /// the two-sided p-value `2(1 − Φ(|z|)) = erfc(|z|/√2)`. When p̄ is 0 or 1 the samples cannot differ:
    /// z is 0 and p is 1.
    ///
    /// - Returns: `nil` when a sample is empty.
    package static func twoProportionTest(
        successes first: Int, of firstTrials: Int, against second: Int, of secondTrials: Int
    ) -> (z: Double, p: Double)? {
        guard firstTrials > 0, secondTrials > 0 else { return nil }
        let n1 = Double(firstTrials)
        let n2 = Double(secondTrials)
        let pooled = Double(first + second) / (n1 + n2)
        let variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
        guard variance > 0 else { return (0, 1) }
        let z = (Double(second) / n2 - Double(first) / n1) / variance.squareRoot()
        return (z, erfc(abs(z) / 2.0.squareRoot()))
    }

    /// Pearson's chi-square goodness of fit of `observed` counts against the shares `weights` give them.
    ///
    /// The expected count of each category is `N·wᵢ/W` (N the total observed, W the sum of the weights),
    /// the statistic `Σ (oᵢ − eᵢ)²/eᵢ` over the categories with a weight above 0, with one degree of freedom
    /// fewer than there are such categories, and the p-value `Q(df/2, χ²/2)`. A category of weight 0 that
    /// observed anything makes the statistic infinite and p 0: it should have had nothing.
    package static func chiSquareGoodnessOfFit(observed: [Int], weights: [Double]) -> (
        statistic: Double, degreesOfFreedom: Int, p: Double
    ) {
        let total = Double(observed.reduce(0, +))
        let weight = weights.reduce(0, +)
        var statistic = 0.0
        var categories = 0
        for (count, share) in zip(observed, weights) {
            guard share > 0 else {
                if count > 0 { statistic = .infinity }
                continue
            }
            categories += 1
            let expected = total * share / weight
            if expected > 0 { statistic += (Double(count) - expected) * (Double(count) - expected) / expected }
        }
        let degrees = max(categories - 1, 0)
        guard statistic.isFinite else { return (statistic, degrees, 0) }
        guard degrees > 0 else { return (statistic, degrees, 1) }
        return (statistic, degrees, chiSquarePValue(statistic, degreesOfFreedom: degrees))
    }

    /// The probability that a chi-square variable with `degreesOfFreedom` exceeds `statistic`:
    /// `Q(df/2, χ²/2)`.
    package static func chiSquarePValue(_ statistic: Double, degreesOfFreedom: Int) -> Double {
        guard statistic > 0 else { return 1 }
        return regularizedUpperGamma(Double(degreesOfFreedom) / 2, statistic / 2)
    }

    /// Q(a, x) = Γ(a, x)/Γ(a), the regularized upper incomplete gamma function, for a > 0 and x ≥ 0.
    ///
    /// Below x = a + 1 the series of P(a, x) converges fast and Q = 1 − P; above it, the continued
    /// fraction of Q (evaluated by the modified Lentz method) does.
    package static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        guard x > 0 else { return 1 }
        guard x.isFinite else { return 0 }
        let logPrefix = a * log(x) - x - lgamma(a)
        if x < a + 1 {
            // P(a, x) = e^-x x^a / Γ(a + 1) · Σ xⁿ / ((a + 1)…(a + n))
            var term = 1 / a
            var sum = term
            var denominator = a
            for _ in 0..<1_000 {
                denominator += 1
                term *= x / denominator
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        // Q(a, x) = e^-x x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − 2·(2 − a)/(x + 5 − a − …)))
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var fraction = d
        for step in 1..<1_000 {
            let an = -Double(step) * (Double(step) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * fraction)
    }

    /// The median of `values`: the middle one, or the mean of the middle two; `nil` for none.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
