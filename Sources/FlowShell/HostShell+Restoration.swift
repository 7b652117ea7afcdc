import FlowHost
import FlowKit
import FlowManifest
import HostSupport

/// `save FILE`, `restore FILE`, and starting at a snapshot (`flowhost run --restore FILE`).
extension HostShell {
    /// Starts the host at `snapshot`, read from `file`, instead of at the manifest's start requests, and
    /// describes what happened: the replayed steps, then the report.
    ///
    /// The services are awaited before the steps replay (``Host/start(restoring:)``).
    ///
    /// The reply's status is an error when a step could not be restored or the screen differs from the
    /// saved one, so that a script stops there.
    package func start(restoring snapshot: HostSnapshot, from file: String) async -> Reply {
        eventLog.removeAll()
        isExecuting = true
        defer { isExecuting = false }
        lastOutcome = nil
        let restoration: HostRestoration
        do {
            restoration = try await host.start(restoring: snapshot)
        } catch {
            return Reply(lines: [], status: .error("\(file): \(error.message)"))
        }
        lastOutcome = topLevelOutcomes(in: eventLog.flowEvents).last
        // The report names each step that did not come back, and why: its request's line would say it again.
        return reply(to: restoration, from: file, lines: lines(describing: events, reported: true))
    }

    /// `save FILE`: writes the host's snapshot to FILE, atomically (unless ``writesSnapshots`` is off), but
    /// not over one of ``runFiles`` or a plugin library the host may load (``Host/libraryFiles``), nor where
    /// a run looks for plugin libraries (``Host/libraryNameProblem(of:)``).
    package func save(_ typed: String) throws(FlowError) -> [String] {
        guard !typed.isEmpty else { throw FlowError("usage: save FILE") }
        let file = typed.expandingHome()
        // Nor over a plugin library the host may load: the library's place would then hold a snapshot, which
        // the next load (a reload, --watch, the next run) refuses.
        if let spared = RunFile.first(in: runFiles + host.libraryFiles, at: file) {
            throw FlowError("\(file): not saved: \(spared.refusal)")
        }
        if let problem = host.libraryNameProblem(of: file) { throw FlowError("\(file): not saved: \(problem)") }
        let snapshot = host.snapshot()
        do {
            if writesSnapshots { try snapshot.write(to: file) }
        } catch {
            throw FlowError(error.description)
        }
        let flow = snapshot.flow
        let assignments = snapshot.experiments.values.reduce(0) { $0 + $1.count }
        var lines = [
            "saved \(file): \(counted(flow.steps.count, "step")), "
                + (flow.waiting.isEmpty ? "" : "\(counted(flow.waiting.count, "waiting request")), ")
                + "\(counted(flow.services.count, "service state")), \(counted(assignments, "experiment assignment"))"
        ]
        for screen in flow.presentation.screens where screen.step == nil {
            lines.append(
                "warning: '\(screen.module)' was presented outside any request, so restoring will not bring it back")
        }
        return lines
    }

    /// `restore FILE`: brings the running host back to the snapshot in FILE, once the services it replaces
    /// have stopped and their replacements started (``Host/restore(_:)``): run by ``perform(_:)``, which
    /// awaits, not by ``execute(_:)``.
    ///
    /// - Returns: The report's lines and the top line; an error status naming every step that could not be
    ///   restored, and how the screen differs, when it is not as saved.
    /// - Throws: ``FlowError`` when the file cannot be read or is not a snapshot this flowhost reads;
    ///   nothing changes.
    func restore(_ typed: String) async throws(FlowError) -> Reply {
        guard !typed.isEmpty else { throw FlowError("usage: restore FILE") }
        let file = typed.expandingHome()
        let snapshot: HostSnapshot
        do {
            snapshot = try HostSnapshot.load(path: file)
        } catch {
            throw FlowError(error.description)
        }
        lastOutcome = nil
        let restoration: HostRestoration
        do {
            restoration = try await host.restore(snapshot)
        } catch {
            throw FlowError("\(file): \(error.message)")
        }
        lastOutcome = topLevelOutcomes(in: eventLog.flowEvents).last
        // As `flowhost run --restore` warns, once the file is read.
        let warning = host.registry.allowsInsecurePlugins ? nil : PathTrust.warning(about: file, what: "snapshot")
        return reply(to: restoration, from: file, lines: warning.map { ["warning: " + $0] } ?? [])
    }

    /// Runs `restore FILE` as ``execute(_:)`` runs a command: its reply describes the events it caused, the
    /// services' stops and starts among them, then the report.
    func performRestore(_ arguments: String) async -> Reply {
        beginCommand()
        defer { isExecuting = false }
        do {
            var restored = try await restore(arguments)
            // As at the start: the report names each step that did not come back, and why.
            restored.lines = lines(describing: events, reported: true) + restored.lines
            return restored
        } catch {
            // A refused restore changed nothing: its error alone, unless something happened meanwhile.
            let lines = lines(describing: describedEvents)
            return Reply(lines: lines.isEmpty ? [] : lines + [topLine], status: .error(error.message))
        }
    }

    /// The lines describing `restoration` after `lines`, then the top line; an error status naming every
    /// problem when it is not complete, which refers to those lines where they share a stream with it
    /// (``Reply/referringError``): `snap.json: not restored as saved (2 problems, said above)`.
    private func reply(to restoration: HostRestoration, from file: String, lines: [String]) -> Reply {
        let report = restoration.report
        var lines = lines + ["\(report.summary) (from \(file))"] + report.problems.map { "  \($0)" }
        if !restoration.restoredServices.isEmpty {
            lines.append("services with their saved state: \(restoration.restoredServices.joined(separator: ", "))")
        }
        if let saved = restoration.manifest, saved != host.manifest.name {
            lines.append(
                "note: saved with manifest '\(saved)'; restored through the routes of '\(host.manifest.name ?? host.manifest.path)'"
            )
        }
        for name in restoration.unusedServiceStates {
            lines.append("warning: no running service took the saved state of '\(name)'")
        }
        lines.append(topLine)
        guard !report.isComplete else { return Reply(lines: lines, status: .ok) }
        // A report with no problem is incomplete only because the screen differs, said even where it cannot say how.
        let screen =
            report.difference.map { "the screen differs: \($0)" }
            ?? (report.problems.isEmpty ? "the screen differs" : nil)
        let problems = report.problems.map(\.description) + [screen].compactMap { $0 }
        var reply = Reply(
            lines: lines, status: .error("\(file): not restored as saved: \(problems.joined(separator: "; "))"))
        let failedSteps = report.problems.count
        let said = failedSteps > 1 ? "\(counted(failedSteps, "problem")), said above" : "said above"
        reply.referringError = "\(file): not restored as saved (\(said))"
        return reply
    }
}
