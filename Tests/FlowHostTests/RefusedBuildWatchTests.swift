import FlowKit
import Glibc
import PluginLoading
import Testing

@testable import FlowHost
@testable import FlowManifest

/// One build of a plugin lands as several watched file events (a linker deletes its output, makes it, and
/// closes it written), each of which takes the library again. A build refused for a manager it does not export
/// is refused once: the same bytes are not opened again for the next event of the same build, since each open
/// maps an image for good and counts towards the cap. The fixtures: V2 of the greeter exports `Farewell`,
/// V1 does not.
@MainActor
struct RefusedBuildWatchTests {
    @Test func aRefusedBuildSeenAgainByTheWatchIsNeitherOpenedNorSaidAgain() throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let host = try lab.host()
        host.coordinator.requestCoordination("bye", from: .app)
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        try lab.install("GreeterPluginV1")
        for _ in 1...3 { host.reloadWhenComplete("greeter", landedAt: .now) }  // the events of one build

        #expect(
            said == [
                "reload refused: \(lab.library): the new generation of plugin 'greeter' exports no manager 'Farewell', which is still routed to it; it exports: Composer, Greeter, Poller; the previous generation keeps serving"
            ])
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.images(of: "greeter") == 2, "the serving image and the refused build's, once")
        #expect(host.coordinator.requestCoordination("bye", from: .app) == .handled(manager: "greeter.Farewell"))

        // A reload asked for tries the same build again, and says so.
        guard case .reloadRefused = host.reloadPlugin("greeter", force: true) else {
            throw TestFailure("a reload asked for should try the refused build again")
        }
        #expect(host.stats.refusedReloads == 2)

        // Once the manifest no longer routes what the build lacks, its bytes written again load.
        try lab.writeManifest(lab.manifest(routes: #"{"request": "greet", "plugin": "greeter", "manager": "Greeter"}"#))
        #expect(host.reloadManifest().description.hasPrefix("reloaded manifest"))
        said = []
        try lab.install("GreeterPluginV1")
        host.reloadWhenComplete("greeter", landedAt: .now)
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("reloaded plugin 'greeter': generation 4") == true, "\(said)")
    }

    /// Text written over a loaded plugin's library is refused saying which generation keeps serving, not
    /// `inspect`'s advice to give the path of a plugin's library: the path was right, its content is not. The
    /// watch's refusal (once its tries for a file still being written are over) and a `reload` say the same.
    @Test func textOverALoadedLibraryIsRefusedSayingWhichGenerationKeepsServing() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)

        try lab.write(Array("garbage written over the plugin's library by mistake\n".utf8))
        let error = try #require(Self.refusal(reloading: "greeter", in: host))
        let watched = host.watchedRefusal(of: "greeter", error)
        let asked = host.reloadPlugin("greeter", force: true)

        #expect(error.message.hasSuffix("; give the path of a plugin's lib<Name>.so"), "inspect's, as loaded")
        let refusal =
            "reload refused: \(lab.library): not an ELF shared object (it starts with text \"garbage \"); generation 1 keeps serving"
        #expect(watched.description == refusal)
        #expect(asked.description == refusal)
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    /// A manifest edit that moves a loaded plugin to a text file keeps the advice to give a plugin's library:
    /// there the path may be the mistake. It says the generation loaded before keeps serving.
    @Test func aManifestEditToATextFileKeepsTheAdviceOnThePath() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        let notes = try lab.directory.file("notes.txt", containing: "hello there, these are notes\n")
        try lab.writeManifest(
            lab.manifest(routes: lab.routes).replacing(#""libGreeter.so""#, with: #""notes.txt""#))
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        host.reloadManifest()

        #expect(
            said.contains(
                "reload refused: \(notes): not an ELF shared object (it starts with text \"hello th\"); give the path of a plugin's lib<Name>.so; generation 1 keeps serving"
            ), "\(said)")
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    /// A loaded plugin's library deleted under the watch is waited for, as a linker deletes it before writing
    /// the new one; still gone after the tries, it is said, not a path to check: the generation loaded serves.
    /// Back with the same bytes, that is said too.
    @Test(.timeLimit(.minutes(5)))
    func aLoadedLibraryDeletedIsSaidGoneOnceTheWaitForItIsOver() async throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        #expect(unlink(lab.library) == 0)
        host.reloadWhenComplete("greeter", landedAt: .now, awaitingFile: true)
        let atOnce = said
        // However busy the main actor is with other tests: the tries end in a refusal.
        while said.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        let gone = said
        try lab.install("GreeterPluginV1")
        host.reloadWhenComplete("greeter", landedAt: .now)

        #expect(atOnce.isEmpty, "a rebuild deletes the file first: not said at once")
        #expect(
            gone == [
                "reload refused: \(lab.library): library of plugin 'greeter' was deleted or moved away; generation 1 keeps serving"
            ])
        #expect(
            said.dropFirst() == [
                "plugin 'greeter': its library is back to the build generation 1 was loaded from; generation 1 keeps serving"
            ])
        #expect(host.coordinator.requestCoordination("greet", from: .app) == .handled(manager: "greeter.Greeter"))
    }

    /// What the registry refuses a reload of `plugin` for, as loading says it.
    private static func refusal(reloading plugin: String, in host: Host) -> PluginLoadError? {
        do {
            _ = try host.registry.reload(plugin, force: true)
            return nil
        } catch {
            return error
        }
    }

    /// Any refusal of the bytes themselves, here an entry point that returns no description, is said once
    /// per build; a refusal that the same bytes may pass later, here the file's permissions, is not remembered.
    @Test func aBuildRefusedForItsBytesIsSaidOnceAndARefusalOfItsFileIsNotRemembered() throws {
        let lab = try SwapLab()
        let host = try lab.host()
        host.coordinator.requestCoordination("greet", from: .app)
        var said: [String] = []
        host.onEvent = { said.append($0.description) }

        try lab.install("BadNullEntryPlugin")
        for _ in 1...3 { host.reloadWhenComplete("greeter", landedAt: .now) }  // the events of one build

        #expect(said.count == 1, "\(said)")
        #expect(said.first?.contains("its entry point returned a null pointer") == true, "\(said)")
        #expect(host.stats.refusedReloads == 1)
        #expect(host.registry.images(of: "greeter") == 2, "the serving image and the refused build's, once")
        guard case .reloadRefused = host.reloadPlugin("greeter", force: true) else {
            throw TestFailure("a reload asked for should try the refused build again")
        }
        #expect(host.stats.refusedReloads == 2)

        // Refused for its file's mode, not its bytes: the same bytes, once the mode is fixed, load.
        try lab.install("GreeterPluginV2")
        #expect(chmod(lab.library, 0o666) == 0)
        said = []
        host.reloadWhenComplete("greeter", landedAt: .now)
        #expect(said.count == 1 && said.first?.contains("writable") == true, "\(said)")
        #expect(chmod(lab.library, 0o644) == 0)
        said = []
        host.reloadWhenComplete("greeter", landedAt: .now)
        #expect(said.count == 1 && said.first?.hasPrefix("reloaded plugin 'greeter'") == true, "\(said)")
    }

    @Test func aWatchedRefusalIsCountedWithNoOneListening() throws {
        let lab = try SwapLab(
            initial: "GreeterPluginV2", extraRoute: #"{"request": "bye", "plugin": "greeter", "manager": "Farewell"}"#)
        let host = try lab.host()  // an embedder's host: no onEvent
        host.coordinator.requestCoordination("bye", from: .app)

        try lab.install("GreeterPluginV1")
        host.reloadWhenComplete("greeter", landedAt: .now)

        #expect(host.stats.refusedReloads == 1)
        try lab.install("GreeterPluginV2")
        guard case .libraryRestored = host.reloadPlugin("greeter") else {
            throw TestFailure("the bytes that serve, back after a refusal, should be said to be")
        }
    }
}
