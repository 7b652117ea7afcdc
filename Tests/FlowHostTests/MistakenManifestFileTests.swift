import FlowShell
import Testing

@testable import FlowManifest

/// A plugin's shared library or a script given where the manifest goes (`flowhost run libGreeting.so`,
/// `flowhost run app.flow`) is said to be one, with where it goes, rather than left as JSON that is not valid;
/// it still exits 65, as any manifest that is not JSON does.
struct MistakenManifestFileTests {
    static let libraryHint =
        #"it is a shared library, not a manifest: a manifest names it in "plugins" (flowhost new-plugin writes one)"#

    /// The start of a 64-bit little-endian ELF shared object for x86_64 (`e_type` 3), then a byte that is not
    /// UTF-8 at column 21.
    static let sharedObjectHeader: [UInt8] =
        [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + [UInt8](repeating: 0, count: 8) + [0x03, 0x00, 0x3E, 0x00]
        + [0xFF]

    @Test(arguments: ["run", "validate"])
    func aSharedLibraryGivenAsTheManifestIsSaidToBeOne(command: String) throws {
        let directory = try TemporaryDirectory()
        let library = try directory.file("libGreeting.so", containing: Self.sharedObjectHeader)

        let run = try Subprocess.flowhost([command, library])

        #expect(run.status == 65)
        #expect(
            run.errorLines
                == ["\(library): not valid JSON: line 1, column 21: invalid UTF-8; \(Self.libraryHint)"]
                + Self.summary(of: command, library))
    }

    /// A plugin library `swift build` made: where its first byte that is not UTF-8 lies is the linker's choice.
    @Test func aBuiltPluginLibraryGivenAsTheManifestIsSaidToBeOne() throws {
        let library = try BuildProducts.path(of: "libWelcomePlugin.so")

        let run = try Subprocess.flowhost(["run", library])

        #expect(run.status == 65)
        let line = try #require(run.errorLines.first)
        #expect(line.hasPrefix("\(library): not valid JSON: line "), "\(line)")
        #expect(line.hasSuffix(": invalid UTF-8; \(Self.libraryHint)"), "\(line)")
    }

    @Test(arguments: ["run", "validate"])
    func aScriptGivenAsTheManifestIsSaidToBeOne(command: String) throws {
        let directory = try TemporaryDirectory()
        let script = try directory.file(
            "app.flow", containing: "# Greets, then leaves.\n\n  send greeting.show\nexpect top Greeting\nquit\n")

        let run = try Subprocess.flowhost([command, script])

        #expect(run.status == 65)
        #expect(
            run.errorLines
                == [
                    "\(script): not valid JSON: line 1, column 1: unexpected character '#'; it looks like a script: "
                        + "pass it with --script (flowhost run MANIFEST --script \(script))"
                ] + Self.summary(of: command, script))
    }

    /// Text that is neither JSON nor a script, and a compiled file that is no shared object, get no hint that
    /// would mislead.
    @Test func otherFilesThatAreNotJSONGetNoScriptOrLibraryHint() {
        let text = #expect(throws: ManifestErrors.self) {
            try Manifest.parse("# notes\nsending is done\n", path: "notes.txt")
        }
        #expect(
            text?.errors.map(\.description) == [
                "notes.txt: not valid JSON: line 1, column 1: unexpected character '#'"
            ])
        var program = Self.sharedObjectHeader
        program[16] = 0x02  // ET_EXEC
        #expect(Manifest.libraryHint(program) == "; it is a compiled (ELF) file, not a manifest")
    }

    /// The line `validate` ends with after the problem, which `run` does not print.
    private static func summary(of command: String, _ file: String) -> [String] {
        command == "validate" ? ["\(file): 1 problem found"] : []
    }

    /// The copy of the shell's command words the script hint looks for is the shell's list.
    @Test func theScriptCommandWordsAreTheShells() {
        #expect(Manifest.scriptCommandWords == Set(HostShell.commandWords))
    }
}
