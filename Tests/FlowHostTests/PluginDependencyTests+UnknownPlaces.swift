import Foundation
import Glibc
import Testing

@testable import PluginLoading

/// Libraries whose search path, or a library they need, names a place flowhost cannot tell (`$LIB`,
/// `$PLATFORM`, bytes that are not UTF-8): the refusal names the entry as written and the library that
/// carries it, and says what flowhost cannot tell, since there is no place it could say others can write.
extension PluginDependencyTests {
    /// The plugin's own `DT_RUNPATH` with `$LIB`, refused by `validate` before its probe.
    @Test func aRunPathWithLibIsRefusedNamingTheEntry() throws {
        let (bytes, entry) = try DamagedLibrary.searching(
            "/usr/$LIB/fh", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        let library = try directory.file("libTokened.so", containing: bytes)
        let scenario = try ProbeScenario(library: library, in: directory)

        let refused = try scenario.flowhost(["validate", scenario.manifest])
        #expect(refused.status == 65)
        #expect(
            refused.errorLines.first
                == "\(library): the plugin's DT_RUNPATH has \(entry), and flowhost cannot tell which directory `$LIB` is, so cannot check who can write it\(unknownEnd)"
        )
        #expect(scenario.probes == 1)  // the welcome plugin's
    }

    /// A library found along the plugin's search path whose `DT_RPATH` has `$PLATFORM`: the refusal names
    /// that library, its tag and the entry.
    @Test func aFoundLibrarysRPathWithPlatformNamesTheEntryAndTheLibrary() throws {
        let directory = try TemporaryDirectory()
        let (searching, dependencyEntry) = try DamagedLibrary.searching(
            "/opt/$PLATFORM", in: try BuildProducts.bytes(of: "libFlowKit.so"))
        let dependency = try DamagedLibrary.retagging(29, to: 15, in: searching)  // DT_RUNPATH to DT_RPATH
        _ = try directory.file("libFlowKiX.so", containing: dependency)
        let (bytes, entry) = try welcomeNeedingAnUnloadedLibrary(searching: directory.path)
        let library = try directory.file("libIndirect.so", containing: bytes)

        expectRefused(
            library,
            for:
                "the DT_RPATH of \(entry)/libFlowKiX.so has \(dependencyEntry), and flowhost cannot tell which directory `$PLATFORM` is, so cannot check who can write it",
            ending: unknownEnd)
    }

    /// A library needed by a path with `$LIB` (`DT_NEEDED`), as the plugin's file spells it.
    @Test func aNeededPathWithLibIsRefusedNamingIt() throws {
        let bytes = try DamagedLibrary.replacing(
            "libFlowKit.so\0", with: "/$LIB/libF.so\0", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let directory = try TemporaryDirectory()
        expectRefused(
            try directory.file("libByToken.so", containing: bytes),
            for:
                "the plugin needs /$LIB/libF.so, and flowhost cannot tell what the loader makes of `$LIB` there, so cannot check who can write the file it opens",
            ending: unknownEnd)
    }

    /// A `DT_RUNPATH` with a byte that is not UTF-8, named with that byte escaped.
    @Test func aRunPathThatIsNotUTF8IsRefusedNamingItsBytes() throws {
        var (bytes, entry) = try DamagedLibrary.searching(
            "/opt/fhZ", in: try BuildProducts.bytes(of: "libWelcomePlugin.so"))
        let written = Array((entry + "\0").utf8)
        let at = try #require(
            bytes.indices.first { bytes[$0..<min($0 + written.count, bytes.count)].elementsEqual(written) })
        bytes[at + 7] = 0xFF  // the Z
        let directory = try TemporaryDirectory()
        let escaped = "/opt/fh\\xFF" + entry.dropFirst(8)
        expectRefused(
            try directory.file("libLatin1Path.so", containing: bytes),
            for:
                "the plugin's DT_RUNPATH is \(escaped), which is not UTF-8, so flowhost cannot tell which directories the loader looks in, nor check who can write them",
            ending: unknownEnd)
    }
}
