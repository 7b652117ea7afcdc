import FlowKit
import Foundation
import Glibc
import Testing

@testable import FlowHost
@testable import FlowManifest
@testable import FlowShell
@testable import PluginLoading

/// Restoring with an async service (the TripPlugin fixture's `Bookings`, which sets `trip.bookings` once its start
/// has awaited 200 ms) that sets a dependency a route needs. Every restore path replayed the snapshot's steps before
/// the service had started: `run --restore` and a supervised restart queued the step (`restored 2 of 3 steps`, exit
/// 1), and the shell's `restore` built the screen with the service being replaced, showing its trips rather than
/// the saved ones. A reload handed the old service's state to the new one in the background, so that a snapshot
/// taken meanwhile saved the new one's empty state.
struct AsyncServiceRestorationTests {
    /// A manifest with the welcome plugin and the trip plugin, its `Bookings` service started, beside a private
    /// cache and state.
    struct Scenario {
        let directory: TemporaryDirectory
        let manifest: String

        init(crashy: Bool = false) throws {
            directory = try TemporaryDirectory()
            let welcome = try BuildProducts.path(of: "libWelcomePlugin.so")
            let trip = try BuildProducts.path(of: "libTripPlugin.so")
            var plugins = [#""welcome": "\#(welcome)""#, #""trip": "\#(trip)""#]
            var routes = [
                #"{"request": "launch", "plugin": "welcome", "manager": "Launch"}"#,
                #"{"request": "trip.list", "plugin": "trip", "manager": "BookingList"}"#,
                #"{"request": "trip.booking", "plugin": "trip", "manager": "Booking"}"#,
            ]
            if crashy {
                plugins.append(#""crashy": "\#(try BuildProducts.path(of: "libCrashyPlugin.so"))""#)
                routes.append(#"{"request": "crashy.trap", "plugin": "crashy", "manager": "Trap"}"#)
            }
            manifest = try directory.file(
                "app.json",
                containing: """
                    {"manifestVersion": 1, "plugins": {\(plugins.joined(separator: ", "))},
                     "routes": [\(routes.joined(separator: ", "))],
                     "services": [{"plugin": "trip", "service": "Bookings"}], "start": ["launch"]}
                    """)
        }

        func run(_ arguments: [String], script lines: String) throws -> Subprocess {
            let script = try directory.file("app.flow", containing: lines)
            return try Subprocess.flowhost(
                ["run", manifest, "--script", script] + arguments,
                environment: ["XDG_CACHE_HOME": directory.path + "/cache", "XDG_STATE_HOME": directory.path + "/state"])
        }

        /// A snapshot of the booking screen, Lisbon booked, saved by a run of its own.
        func savedBooking() throws -> String {
            let saved = directory.path + "/booking.json"
            let run = try run(
                [],
                script: """
                    send trip.list
                    act book {"trip": "Lisbon"}
                    act open
                    expect content trips ["Lisbon"]
                    save \(saved)

                    """)
            try #require(run.status == 0, "\(run.standardOutput)\(run.standardError)")
            return saved
        }
    }

    @Test func runRestoreAwaitsTheAsyncServiceBeforeItReplays() throws {
        let scenario = try Scenario()
        let saved = try scenario.savedBooking()

        let run = try scenario.run(["--restore", saved], script: "expect content trips [\"Lisbon\"]\n")

        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.outputLines.contains("  restored 3 of 3 steps; the screen is as saved (from \(saved))"))
        #expect(!run.standardOutput.contains("queued until trip.bookings is set"), "\(run.standardOutput)")
    }

    @Test func theShellsRestoreBuildsTheScreenWithTheNewServiceStarted() throws {
        let scenario = try Scenario()
        let saved = try scenario.savedBooking()

        let run = try scenario.run(
            [],
            script: """
                send trip.list
                act book {"trip": "Oslo"}
                restore \(saved)
                expect stack welcome > bookingList > booking
                expect content trips ["Lisbon"]

                """)

        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let output = run.standardOutput
        let restore = try #require(output.range(of: "> restore"))
        let restored = try #require(output.range(of: "restored 3 of 3 steps"))
        // The old service stopped and the new one started (setting its dependency) before the steps replayed.
        let started = output.range(of: "service trip.Bookings started", range: restore.upperBound..<output.endIndex)
        #expect(started.map { $0.lowerBound < restored.lowerBound } == true, "\(output)")
    }

    @Test func aSnapshotRightAfterAReloadSavesTheStateHandedOver() throws {
        let scenario = try Scenario()
        let saved = scenario.directory.path + "/reloaded.json"

        let run = try scenario.run(
            [],
            script: """
                send trip.list
                act book {"trip": "Lisbon"}
                reload trip
                save \(saved)

                """)

        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let snapshot = try HostSnapshot.load(path: saved)
        #expect(snapshot.flow.services["trip.Bookings"] == ["trips": ["Lisbon"]])
    }

    @Test func aCommandAfterAReloadReachesTheNewServiceOnceItHasStarted() throws {
        let scenario = try Scenario()
        let saved = scenario.directory.path + "/reloaded.json"

        // The reload hands Lisbon to the new service, which sets `trip.bookings` 200 ms later: the new generation's
        // list, shown at once, found the old service's `trip.bookings`, of a type it does not know (each copy of a
        // plugin has its own), and its booking failed with "trip.bookings is not set".
        let run = try scenario.run(
            [],
            script: """
                send trip.list
                act book {"trip": "Lisbon"}
                reload trip
                send trip.list
                act book {"trip": "Oslo"}
                act open
                expect content trips ["Lisbon", "Oslo"]
                save \(saved)

                """)

        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let snapshot = try HostSnapshot.load(path: saved)
        #expect(snapshot.flow.services["trip.Bookings"] == ["trips": ["Lisbon", "Oslo"]])
    }

    @MainActor @Test func aNewGenerationFindingTheOldGenerationsDependencySaysWhoseItIs() async throws {
        let scenario = try Scenario()
        let host = Host(
            manifest: try Manifest.load(path: scenario.manifest),
            searchPath: PluginSearchPath([BuildProducts.directory]), versioned: true)
        await host.startAndWait()

        #expect(host.reloadPlugin("trip", force: true).isReloaded)
        // The new service sets `trip.bookings` once started, 200 ms from now: until then it is the old one's.
        let outcome = host.coordinator.requestCoordination("trip.booking", from: "welcome")

        guard case .failed(let error) = outcome else {
            Issue.record("not failed: \(outcome)")
            return
        }
        #expect(
            error.message
                == "dependency 'trip.bookings' is a BookingsService of another copy of its plugin (each generation a reload loads has types of its own); the Bookings service sets it once started"
        )
        await host.stopAndWait()
    }

    @Test func aSupervisedRestartAfterACrashAwaitsTheAsyncServiceBeforeItReplays() throws {
        let scenario = try Scenario(crashy: true)

        let run = try scenario.run(
            ["--supervise"],
            script: """
                send trip.list
                act book {"trip": "Lisbon"}
                act open
                send crashy.trap
                expect stack welcome > bookingList > booking
                expect content trips ["Lisbon"]

                """)

        #expect(run.errorLines.last?.hasSuffix("1 plugin crash during the script: crashy.Trap (SIGILL)") == true)
        #expect(run.errorLines.count == 2, "only the crash and the summary: \(run.standardError)")
        #expect(
            run.outputLines.contains(
                "  restored 3 of 3 steps; the screen is as saved (from the snapshot saved before the crash)"),
            "\(run.standardOutput)")
    }

    @MainActor @Test func hostRestoreAwaitsTheServicesOfAHostNotStarted() async throws {
        let scenario = try Scenario()
        let saved = try HostSnapshot.load(path: try scenario.savedBooking())
        let host = Host(
            manifest: try Manifest.load(path: scenario.manifest),
            searchPath: PluginSearchPath([BuildProducts.directory]))

        let restoration = try await host.start(restoring: saved)

        #expect(restoration.report.isComplete, "\(restoration.report)")
        #expect(host.coordinator.router.top?.content == ["trips": ["Lisbon"]])
        await host.stopAndWait()
    }
}
