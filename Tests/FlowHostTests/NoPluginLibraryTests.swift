import Glibc
import Testing

/// A library with no entry point that a `plugins` entry names is said at the entry's place, as a library not
/// found is, keeping the library's path, and so is a file that is no library at all; and one that does not link
/// FlowKit at all is said to be no FlowKit plugin, since the advice to add the entry point alone would not
/// compile there.
struct NoPluginLibraryTests {
    nonisolated static let hasCCompiler = access("/usr/bin/cc", X_OK) == 0

    /// `lib<name>.so` built by cc from a C function, in `directory`, linked with `flags`.
    private func library(_ name: String, in directory: TemporaryDirectory, flags: [String] = []) throws -> String {
        let source = try directory.file(
            "\(name).c", containing: "int \(name.lowercased())_answer(void) { return 42; }\n")
        let library = directory.path + "/lib\(name).so"
        let compiler = try Subprocess.run("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source] + flags)
        try #require(compiler.status == 0, "cc: \(compiler.standardError)")
        return library
    }

    /// A manifest in `directory` whose plugins, each with a route, are the libraries at `libraries`.
    private func manifest(_ libraries: [String: String], in directory: TemporaryDirectory) throws -> String {
        let entries = libraries.sorted { $0.key < $1.key }
        let plugins = entries.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
        let routes = entries.map { #"{"request": "\#($0.key).show", "plugin": "\#($0.key)", "manager": "Show"}"# }
        return try directory.file(
            "plain.json",
            containing: """
                {"manifestVersion": 1, "plugins": {\(plugins)}, "routes": [\(routes.joined(separator: ", "))]}
                """)
    }

    @Test(.enabled(if: hasCCompiler, "needs a C compiler to build a library that is no plugin"))
    func aLibraryThatDoesNotLinkFlowKitIsSaidToBeNoFlowKitPluginAtItsEntry() throws {
        let directory = try TemporaryDirectory()
        let library = try library("Plain", in: directory)
        let manifest = try manifest(["plain": library], in: directory)

        let run = try Subprocess.flowhost(
            ["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 65)
        #expect(
            run.errorLinesWithoutNotes == [
                "\(manifest): plugins.plain: \(library): has no entry point 'flowkit_plugin_entry': it is not a FlowKit plugin, it does not link libFlowKit.so; add FlowKit as a dependency (`.product(name: \"FlowKit\", package: \"FlowKit\")`, see docs/authoring.md), then `@c(flowkit_plugin_entry) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }`, where `plugin` is its PluginDescription",
                "\(manifest): 1 problem found",
            ])
    }

    /// One that links libFlowKit.so only lacks the entry point, which is what it is told to add; each entry that
    /// names it is told so at its place.
    @Test(.enabled(if: hasCCompiler, "needs a C compiler to build a library that is no plugin"))
    func aLibraryLinkingFlowKitWithoutAnEntryPointIsSaidAtEachEntryNamingIt() throws {
        let directory = try TemporaryDirectory()
        let library = try library(
            "Unfinished", in: directory,
            flags: ["-L", BuildProducts.directory, "-Wl,--no-as-needed", "-lFlowKit"])
        let manifest = try manifest(["a": library, "b": library], in: directory)

        let run = try Subprocess.flowhost(
            ["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 65)
        #expect(
            run.errorLinesWithoutNotes == ["a", "b"].map {
                "\(manifest): plugins.\($0): \(library): has no entry point 'flowkit_plugin_entry'; add `@c(flowkit_plugin_entry) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }` to the plugin, where `plugin` is its PluginDescription"
            } + ["\(manifest): 2 problems found"])
    }

    /// A text file, or a program, named as a plugin's library: the entry's mistake, said at its place.
    @Test func aFileThatIsNoLibraryIsSaidAtTheEntryNamingIt() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.file("libText.so", containing: "hello\n")
        let program = directory.path + "/libProgram.so"
        let copy = try Subprocess.run("/bin/cp", ["/bin/true", program])
        try #require(copy.status == 0, "cp: \(copy.standardError)")
        let manifest = try manifest(["program": program, "text": text], in: directory)

        let run = try Subprocess.flowhost(
            ["validate", manifest], environment: ["XDG_CACHE_HOME": directory.path + "/cache"])

        #expect(run.status == 65)
        #expect(
            run.errorLinesWithoutNotes == [
                "\(manifest): plugins.program: \(program): is a program (it names an interpreter), not a plugin library; build the plugin as a `.library(type: .dynamic)` product",
                "\(manifest): plugins.text: \(text): not an ELF shared object (it starts with text \"hello\\n\"); give the path of a plugin's lib<Name>.so",
                "\(manifest): 2 problems found",
            ])
    }
}
