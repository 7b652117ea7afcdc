import Testing

@testable import HostSupport
@testable import PluginLoading

/// A library whose third entry point takes its host down is quarantined whole, and the reason says what its
/// entry points did: `crashed` only when each one crashed, since a hang or an exit is no crash; so does its
/// kind (`quarantine list --json`), which was the third one's.
struct QuarantineThresholdTests {
    @Test(arguments: [
        ([PluginLoadError.Kind.crashed, .crashed, .crashed], "crashed", PluginLoadError.Kind.crashed),
        ([PluginLoadError.Kind.crashed, .timedOut, .exited], "took the host down", .timedOut),
        ([PluginLoadError.Kind.timedOut, .crashed, .crashed], "took the host down", .timedOut),
    ])
    func theThirdEntryPointQuarantinesTheLibrary(
        kinds: [PluginLoadError.Kind], failed: String, kind: PluginLoadError.Kind
    ) throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libWelcome.so", containing: BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let quarantine = PluginQuarantine(directory: CacheDirectory(path: directory.path + "/cache"))
        let entryPoints: [PluginEntryPoint] = [
            .manager("welcome.Launch"), .manager("welcome.Tour"), .service("welcome.Clock"),
        ]

        var added: [PluginQuarantine.Added] = []
        for (kind, entryPoint) in zip(kinds, entryPoints) {
            added.append(
                try quarantine.add(library, kind: kind, reason: "failed in a supervised run", entryPoint: entryPoint))
        }

        #expect(added == [.entryPoint, .entryPoint, .libraryAfterEntryPoints(3, failed: failed)])
        let whole = try #require(quarantine.entry(for: library, identity: FileIdentity(path: library)))
        #expect(whole.entryPoint == nil)
        #expect(whole.kind == kind)
        #expect(
            whole.reason
                == "\(failed) in 3 entry points: manager 'welcome.Launch', manager 'welcome.Tour', service 'welcome.Clock'"
        )
    }
}
