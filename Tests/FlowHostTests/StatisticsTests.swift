import Glibc
import Testing

@testable import FlowTraces

/// The report's statistics against figures worked out by hand (the working is in each test) and against
/// closed forms of the chi-square distribution.
struct StatisticsTests {
    @Test func wilsonIntervalOfFourInTen() {
        // p = 0.4, n = 10, z² = 3.841459: centre 0.4 + 3.841459/20 = 0.592073; spread
        // 1.959964·√(0.024 + 3.841459/400) = 1.959964·0.183314 = 0.359289; divided by 1 + 3.841459/10 = 1.384146:
        // [0.232784/1.384146, 0.951362/1.384146] = [0.168180, 0.687326].
        let interval = Statistics.wilsonInterval(successes: 4, trials: 10)

        #expect(abs(interval.lower - 0.168180) < 1e-6)
        #expect(abs(interval.upper - 0.687326) < 1e-6)
    }

    @Test func wilsonIntervalStaysWithinZeroAndOne() {
        // All or nothing: the bounds touch 0 or 1 and the other is (z²/n)/(1 + z²/n) away from it:
        // 0.384146/1.384146 = 0.277533.
        let none = Statistics.wilsonInterval(successes: 0, trials: 10)
        let all = Statistics.wilsonInterval(successes: 10, trials: 10)

        #expect(none.lower == 0)
        #expect(abs(none.upper - 0.277533) < 1e-6)
        #expect(abs(all.lower - (1 - 0.277533)) < 1e-6)
        #expect(all.upper == 1, "not 0.9999999999999999")
        #expect(Statistics.wilsonInterval(successes: 0, trials: 2000).lower == 0, "not 1.08e-19")
        #expect(Statistics.wilsonInterval(successes: 2000, trials: 2000).upper == 1, "not 0.9999999999999998")
        #expect(Statistics.wilsonInterval(successes: 0, trials: 0) == (0, 1))
    }

    @Test func twoProportionTestOfFourInTenAgainstNineInTwelve() throws {
        // Pooled 13/22 = 0.590909; se = √(0.590909·0.409091·(1/10 + 1/12)) = √(0.241736·0.183333) = 0.210519;
        // z = (0.75 − 0.4)/0.210519 = 1.662559; p = erfc(1.662559/√2) = 0.096401.
        let test = try #require(Statistics.twoProportionTest(successes: 4, of: 10, against: 9, of: 12))

        #expect(abs(test.z - 1.662559) < 1e-6)
        #expect(abs(test.p - 0.096401) < 1e-6)
        let reversed = try #require(Statistics.twoProportionTest(successes: 9, of: 12, against: 4, of: 10))
        #expect(abs(reversed.z + 1.662559) < 1e-6)
        #expect(abs(reversed.p - test.p) < 1e-12)
    }

    @Test func twoProportionTestOfIdenticalAllOrNothingSamplesFindsNoDifference() throws {
        let all = try #require(Statistics.twoProportionTest(successes: 50, of: 50, against: 40, of: 40))

        #expect(all.z == 0)
        #expect(all.p == 1)
        #expect(Statistics.twoProportionTest(successes: 0, of: 0, against: 4, of: 10) == nil)
    }

    @Test func normalDistributionFunction() {
        #expect(Statistics.normalCDF(0) == 0.5)
        #expect(abs(Statistics.normalCDF(Statistics.z95) - 0.975) < 1e-12)
        #expect(abs(Statistics.normalCDF(-1) - 0.158655) < 1e-6)
    }

    @Test func chiSquarePValuesMatchTheClosedForms() {
        // df 1: erfc(√(x/2)); df 2: e^(−x/2); df 3: erfc(√(x/2)) + √(2x/π)·e^(−x/2); df 4: e^(−x/2)(1 + x/2).
        for x in [0.01, 0.5, 1, 3, 7.5, 16, 40] {
            let one = erfc((x / 2).squareRoot())
            let two = exp(-x / 2)
            let three = one + (2 * x / Double.pi).squareRoot() * exp(-x / 2)
            let four = exp(-x / 2) * (1 + x / 2)
            for (df, expected) in [(1, one), (2, two), (3, three), (4, four)] {
                let p = Statistics.chiSquarePValue(x, degreesOfFreedom: df)
                #expect(abs(p - expected) <= 1e-12 + expected * 1e-9, "x \(x), df \(df): \(p) against \(expected)")
            }
        }
        #expect(Statistics.chiSquarePValue(0, degreesOfFreedom: 1) == 1)
    }

    @Test func sampleRatioOfTenToTwelveAgainstEvenWeights() {
        // Expected 11 and 11: (10 − 11)²/11 + (12 − 11)²/11 = 0.181818, 1 df, p = erfc(√0.090909) = 0.669815.
        let fit = Statistics.chiSquareGoodnessOfFit(observed: [10, 12], weights: [50, 50])

        #expect(abs(fit.statistic - 0.181818) < 1e-6)
        #expect(fit.degreesOfFreedom == 1)
        #expect(abs(fit.p - 0.669815) < 1e-6)
    }

    @Test func sampleRatioOfSeventyToThirtyIsAMismatch() {
        // Expected 50 and 50: 20²/50 · 2 = 16, p = erfc(√8) = 0.0000633.
        let fit = Statistics.chiSquareGoodnessOfFit(observed: [70, 30], weights: [1, 1])

        #expect(fit.statistic == 16)
        #expect(abs(fit.p - 6.334248e-5) < 1e-10)
        #expect(fit.p < ExperimentReport.mismatchThreshold)
    }

    @Test func sampleRatioWithUnevenWeightsAndAWeightOfZero() {
        // Weights 2 : 1 : 1 of 80: expected 40, 20, 20; (44 − 40)²/40 + (18 − 20)²/20 + (18 − 20)²/20 = 0.8,
        // 2 df, p = e^−0.4 = 0.670320.
        let fit = Statistics.chiSquareGoodnessOfFit(observed: [44, 18, 18, 0], weights: [2, 1, 1, 0])
        #expect(abs(fit.statistic - 0.8) < 1e-12)
        #expect(fit.degreesOfFreedom == 2)
        #expect(abs(fit.p - 0.670320) < 1e-6)

        let leak = Statistics.chiSquareGoodnessOfFit(observed: [44, 18, 18, 1], weights: [2, 1, 1, 0])
        #expect(leak.statistic == .infinity)
        #expect(leak.p == 0, "a variant of weight 0 should have no subjects")
    }

    @Test func medianOfOddAndEvenCounts() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.median([]) == nil)
    }
}
