import FlowKit
import Glibc
import Testing

@testable import FlowManifest
@testable import HostSupport
@testable import PluginLoading

/// The loader's refusals, each with its one-line message, on real and crafted files.
@MainActor
struct PluginLoaderTests {
    @Test func textFileRenamedSoIsNotAnELFSharedObject() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("notes.so", containing: "hello\nworld\n")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .notELF)
        #expect(
            error?.description
                == "\(path): not an ELF shared object (it starts with text \"hello\\nwo\"); give the path of a plugin's lib<Name>.so"
        )
    }

    @Test func emptyFileIsNotAnELFSharedObject() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("empty.so", containing: "")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(
            error?.message == "not an ELF shared object (the file is empty); give the path of a plugin's lib<Name>.so")
    }

    @Test func libraryForAnotherMachineIsRefusedBeforeDlopen() throws {
        var bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        bytes[18] = 183  // e_machine: aarch64
        bytes[19] = 0
        let directory = try TemporaryDirectory()
        let path = try directory.file("libArm.so", containing: bytes)

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .wrongArchitecture)
        #expect(error?.message == "built for aarch64, this host is x86_64; rebuild the plugin on this machine")
    }

    @Test func relocatableObjectIsNotASharedObject() throws {
        var bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        bytes[16] = 1  // e_type: ET_REL
        let directory = try TemporaryDirectory()
        let path = try directory.file("object.so", containing: bytes)

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(
            error?.message
                == "is a relocatable object (.o), not a shared object; build the plugin as a `.library(type: .dynamic)` product"
        )
    }

    @Test func truncatedLibraryIsRefusedBeforeItCanCrashTheLoader() throws {
        let bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        let directory = try TemporaryDirectory()
        let path = try directory.file("libTruncated.so", containing: Array(bytes.prefix(4096)))

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .incomplete)
        let message = try #require(error?.message)
        let prefix = "is truncated: 4096 bytes where its ELF headers need at least "
        let suffix = " bytes; wait for the build to finish or copy it again"
        #expect(message.hasPrefix(prefix) && message.hasSuffix(suffix), "\(message)")
        #expect(Int(message.dropFirst(prefix.count).dropLast(suffix.count)).map { $0 > 4096 } == true, "\(message)")
    }

    /// The first bytes of an ELF file, fewer than its header's first fields, as a build writing it leaves them
    /// for a moment: truncated, not "not an ELF shared object (it starts with bytes 7f 45 4c 46)".
    @Test(arguments: [2, 4, 16])
    func theFirstBytesOfAnELFFileAreTruncated(count: Int) throws {
        let bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        let directory = try TemporaryDirectory()
        let path = try directory.file("libCut.so", containing: Array(bytes.prefix(count)))

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .incomplete)
        #expect(
            error?.message
                == "is truncated: \(count) bytes, shorter than an ELF header; wait for the build to finish or copy it again"
        )
    }

    @Test func headerWhoseTablesOverflowIsTruncatedNotATrap() throws {
        var bytes = try BuildProducts.bytes(of: "libFlowKit.so")
        for index in 32..<40 { bytes[index] = 0xFF }  // e_phoff: the largest offset there is
        let directory = try TemporaryDirectory()
        let path = try directory.file("libHuge.so", containing: bytes)

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .incomplete)
        #expect(error?.message.contains("where its ELF headers need more than the file system allows") == true)
    }

    @Test func programIsRefusedBeforeDlopen() throws {
        let path = try #require(ProcessInfoLite.executableDirectory()) + "/FlowHostPackageTests.xctest"

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .notSharedObject)
        #expect(
            error?.message
                == "is a program (it names an interpreter), not a plugin library; build the plugin as a `.library(type: .dynamic)` product"
        )
    }

    @Test func libraryWithoutTheEntryPointIsNotAPlugin() throws {
        let path = try BuildProducts.path(of: "libFlowKit.so")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .missingEntry)
        #expect(
            error?.message.hasPrefix("has no entry point 'flowkit_plugin_entry'; add `@c(flowkit_plugin_entry)") == true
        )
    }

    // MARK: - The header, checked before any plugin type is touched

    @Test func nullHeaderIsRefused() {
        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.readHeader(nil, file: "p.so") }

        #expect(
            error?.description
                == "p.so: its entry point returned a null pointer; return `PluginEntry.export(description)`")
    }

    @Test func headerWithTheWrongMagicIsRefused() {
        let header = Header(magic: 0xDEAD_BEEF, version: .current, identity: PluginEntry.sdkIdentity)

        let error = #expect(throws: PluginLoadError.self) { try header.read() }

        #expect(error?.kind == .badHeader)
        #expect(error?.message.contains("magic 0xdeadbeef") == true)
    }

    @Test func aPluginOfANewerMinorIsRefusedAskingToUpdateFlowhost() {
        let header = Header(magic: PluginEntry.magic, field: 1 << 16 | 4, identity: PluginEntry.sdkIdentity)

        let error = #expect(throws: PluginLoadError.self) { try header.read(host: FlowKitVersion(major: 1, minor: 2)) }

        #expect(error?.kind == .abiMismatch)
        #expect(error?.description == "p.so: built against FlowKit 1.4, this flowhost has FlowKit 1.2; update flowhost")
    }

    @Test func aPluginOfAnotherMajorIsRefused() {
        let newer = Header(magic: PluginEntry.magic, field: 2 << 16 | 0, identity: PluginEntry.sdkIdentity)
        let older = Header(magic: PluginEntry.magic, field: 1 << 16 | 3, identity: PluginEntry.sdkIdentity)

        let newerError = #expect(throws: PluginLoadError.self) {
            try newer.read(host: FlowKitVersion(major: 1, minor: 2))
        }
        let olderError = #expect(throws: PluginLoadError.self) {
            try older.read(host: FlowKitVersion(major: 2, minor: 0))
        }

        #expect(newerError?.kind == .abiMismatch)
        #expect(newerError?.message == "built against FlowKit 2.0, this flowhost has FlowKit 1.2; update flowhost")
        #expect(olderError?.kind == .abiMismatch)
        #expect(
            olderError?.message
                == "built against FlowKit 1.3, this flowhost has FlowKit 2.0; rebuild the plugin against FlowKit 2.0")
    }

    @Test func aPluginBuiltForAnABIBeforeOneIsRefusedAskingForARebuild() {
        let header = Header(magic: PluginEntry.magic, field: 6, identity: PluginEntry.sdkIdentity)

        let error = #expect(throws: PluginLoadError.self) { try header.read(host: FlowKitVersion(major: 1, minor: 0)) }

        #expect(error?.kind == .abiMismatch)
        #expect(
            error?.description
                == "p.so: built for FlowKit ABI 6, from before FlowKit 1.0, this flowhost has FlowKit 1.0; rebuild the plugin against FlowKit 1.0"
        )
    }

    @Test(arguments: [0, 2])
    func aPluginOfAnOlderOrEqualMinorLoads(minor: Int) throws {
        let pointer = PluginEntry.export(PluginDescription(name: "probe", version: "1.0", managers: []))
        defer {  // What a plugin's entry hands the host for good, given back here.
            Unmanaged<PluginRegistration>.fromOpaque(pointer.load(fromByteOffset: 16, as: UnsafeRawPointer.self))
                .release()
            UnsafeMutableRawPointer(mutating: pointer).deallocate()
        }
        // The header of a plugin built against FlowKit 1.minor.
        UnsafeMutableRawPointer(mutating: pointer).storeBytes(
            of: 1 << 16 | UInt32(minor), toByteOffset: 4, as: UInt32.self)

        let (version, registration) = try PluginLoader.readHeader(
            pointer, file: "p.so", host: FlowKitVersion(major: 1, minor: 2))

        #expect(version == FlowKitVersion(major: 1, minor: minor))
        #expect(registration.description.name == "probe")
    }

    @Test func pluginWithItsOwnFlowKitIsRefused() {
        var other = 0
        let header = withUnsafePointer(to: &other) {
            Header(magic: PluginEntry.magic, version: .current, identity: UnsafeRawPointer($0))
        }

        let error = #expect(throws: PluginLoadError.self) { try header.read() }

        #expect(error?.kind == .duplicateSDK)
        #expect(
            error?.message.hasPrefix("links its own copy of FlowKit instead of the host's shared libFlowKit.so") == true
        )
    }

    @Test func validHeaderYieldsTheDescription() throws {
        let pointer = PluginEntry.export(PluginDescription(name: "probe", version: "1.0", managers: []))
        defer {  // What a plugin's entry hands the host for good, given back here.
            Unmanaged<PluginRegistration>.fromOpaque(pointer.load(fromByteOffset: 16, as: UnsafeRawPointer.self))
                .release()
            UnsafeMutableRawPointer(mutating: pointer).deallocate()
        }

        let (version, registration) = try PluginLoader.readHeader(pointer, file: "p.so")

        #expect(version == FlowKitVersion.current)
        #expect(registration.description.name == "probe")
    }

    // MARK: - Finding and checking files

    /// Each directory searched, and whether it is there at all: a mistyped `--plugin-path` is not.
    @Test func missingLibraryListsTheDirectoriesSearched() {
        let searchPath = PluginSearchPath(["/nowhere/a", "/"])

        let error = #expect(throws: PluginLoadError.self) { try searchPath.locate("libGone.so", relativeTo: "/") }

        #expect(
            error?.description
                == "libGone.so: plugin library not found (searched: /nowhere/a (not there), /); build it with `swift build` or add its directory with --plugin-path"
        )
    }

    /// A directory missing below the manifest's is most likely a relative `pluginPath` entry written as if it
    /// were read from where flowhost runs: the advice says where it is read from.
    @Test func missingLibraryWithAPluginPathMissingBesideTheManifestSaysWhereRelativeEntriesAreRead() throws {
        let app = try TemporaryDirectory()
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "pluginPath": [".build/debug"], "plugins": {}, "routes": []}"#,
            path: app.path + "/app.json")
        let searchPath = PluginSearchPath.standard(manifest: manifest, environment: nil, executableDirectory: "/")

        let error = #expect(throws: PluginLoadError.self) {
            try searchPath.locate("libGreeting.so", relativeTo: app.path, plugin: "greeting")
        }

        #expect(
            error?.description
                == "libGreeting.so: library of plugin 'greeting' not found (searched: \(app.path)/.build/debug (not there), /); a relative \"pluginPath\" entry is read from the manifest's directory, \(app.path): fix the entry, or add the library's directory with --plugin-path"
        )
    }

    /// An absolute `pluginPath` entry is read as written, wherever it is: missing below the manifest's directory,
    /// it is said to be not there, not to be read from the manifest's directory.
    @Test func missingLibraryWithAnAbsolutePluginPathMissingBesideTheManifestSaysTheEntryIsNotThere() throws {
        let app = try TemporaryDirectory()
        let manifest = try Manifest.parse(
            #"{"manifestVersion": 1, "pluginPath": ["\#(app.path)/gone"], "plugins": {}, "routes": []}"#,
            path: app.path + "/app.json")
        let searchPath = PluginSearchPath.standard(manifest: manifest, environment: nil, executableDirectory: "/")

        let error = #expect(throws: PluginLoadError.self) {
            try searchPath.locate("libGreeting.so", relativeTo: app.path, plugin: "greeting")
        }

        #expect(
            error?.description
                == "libGreeting.so: library of plugin 'greeting' not found (searched: \(app.path)/gone (not there), /); the manifest's \"pluginPath\" entry \(app.path)/gone is not there: build the library into it with `swift build`, fix the entry, or add the library's directory with --plugin-path"
        )
    }

    /// A library built in the manifest's package (`swift build -c release` here) but not on the search path
    /// is pointed to, with the --plugin-path that finds it, instead of advice to build it.
    @Test func missingLibraryBuiltBesideTheManifestSaysWhichPluginPathFindsIt() throws {
        let package = try TemporaryDirectory()
        try #require(mkdir(package.path + "/.build", 0o755) == 0 && mkdir(package.path + "/.build/release", 0o755) == 0)
        _ = try package.file(".build/release/libGreeting.so", containing: "not loaded")
        let searchPath = PluginSearchPath(["/nowhere/a"])

        let error = #expect(throws: PluginLoadError.self) {
            try searchPath.locate("libGreeting.so", relativeTo: package.path, plugin: "greeting")
        }

        #expect(
            error?.description
                == "libGreeting.so: library of plugin 'greeting' not found (searched: /nowhere/a (not there)); found \(package.path)/.build/release/libGreeting.so: pass --plugin-path \(package.path)/.build/release"
        )
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(Array(String(repeating: "a", count: 1000).utf8))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// Every length around the block boundaries, where the padding takes one block or two, as `sha256sum`
    /// hashes the same bytes.
    @Test func sha256AgreesWithSha256sumAroundEveryBlockBoundary() throws {
        let directory = try TemporaryDirectory()
        let lengths = Array(0...200) + [4095, 4096, 4097, 65_536 + 55]
        let files = try lengths.map { length in
            try directory.file("\(length)", containing: (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        }
        let sums = try Subprocess.run("/usr/bin/sha256sum", files)
        try #require(sums.status == 0, "\(sums.standardError)")
        let expected = sums.standardOutput.split(separator: "\n").map { String($0.prefix(64)) }
        let computed = lengths.map { length in
            SHA256.hex((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
        }
        #expect(computed == expected)
        let portable = lengths.map { length in
            SHA256.hex((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }, usingSHAExtensions: false)
        }
        #expect(portable == expected)
    }

    /// The processor's SHA rounds and the portable ones agree on random bytes of every length up to four
    /// blocks and on a plugin library.
    @Test(.enabled(if: SHA256.usesSHAExtensions, "the processor has no SHA extensions"))
    func sha256ExtensionsAgreeWithThePortableRounds() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...256 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(
                SHA256.hex(bytes, usingSHAExtensions: true) == SHA256.hex(bytes, usingSHAExtensions: false),
                "\(length) bytes: \(bytes)")
        }
        let library = try BuildProducts.bytes(of: "libGreeterPluginV1.so")
        #expect(SHA256.hex(library, usingSHAExtensions: true) == SHA256.hex(library, usingSHAExtensions: false))
    }
}

// MARK: - Test Helpers

/// A header laid out as ``PluginEntry`` documents it, with chosen fields.
private struct Header {
    var bytes = [UInt64](repeating: 0, count: 3)

    init(magic: UInt32, field: UInt32, identity: UnsafeRawPointer) {
        bytes[0] = UInt64(magic) | UInt64(field) << 32
        bytes[1] = UInt64(UInt(bitPattern: identity))
    }

    init(magic: UInt32, version: FlowKitVersion, identity: UnsafeRawPointer) {
        self.init(magic: magic, field: UInt32(version.major) << 16 | UInt32(version.minor), identity: identity)
    }

    func read(host: FlowKitVersion = .current) throws(PluginLoadError) -> (
        version: FlowKitVersion, registration: PluginRegistration
    ) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 24, alignment: 8)
        defer { buffer.deallocate() }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        return try PluginLoader.readHeader(UnsafeRawPointer(buffer.baseAddress), file: "p.so", host: host)
    }
}

extension PluginLoaderTests {
    @Test func pluginWithItsOwnCopyOfFlowKitIsRefusedBeforeItsTypesAreTouched() throws {
        let path = try BuildProducts.path(of: "libStaticSDKPlugin.so")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: path) }

        #expect(error?.kind == .duplicateSDK)
        #expect(
            error?.description
                == "\(path): links its own copy of FlowKit instead of the host's shared libFlowKit.so, so its types would not match the host's; depend on `.product(name: \"FlowKit\", package: \"FlowKit\")` and do not add FlowKit's sources or a static FlowKit to the plugin"
        )
    }
}

extension PluginLoaderTests {
    nonisolated static let hasCCompiler = access("/usr/bin/cc", X_OK) == 0

    @Test(.enabled(if: hasCCompiler, "needs a C compiler to build a library with an unresolved symbol"))
    func unresolvedSymbolIsReportedWithTheDynamicLoadersText() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.file(
            "undefined.c",
            containing:
                "extern int flowkit_missing(void);\nint flowkit_plugin_entry(void) { return flowkit_missing(); }\n")
        let library = directory.path + "/libUndefined.so"
        let compiler = try Subprocess.run("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source])
        try #require(compiler.status == 0, "cc: \(compiler.standardError)")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: library) }

        #expect(error?.kind == .dlopenFailed)
        #expect(
            error?.message
                == "the dynamic loader refused it: \(library): undefined symbol: flowkit_missing; the plugin needs a symbol this process lacks: rebuild it against this host's FlowKit"
        )
    }

    /// A plugin `swift test --sanitize=address` built over the one `swift build` made needs the sanitizer's
    /// runtime, which flowhost does not load: the hint says so, not that FlowKit is another build. (The symbol
    /// is one no sanitizer defines, so that the test means the same in a sanitized test run.)
    @Test(.enabled(if: hasCCompiler, "needs a C compiler to build a library with an unresolved symbol"))
    func aSanitizersUnresolvedSymbolSaysThePluginWasBuiltWithASanitizer() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.file(
            "sanitized.c",
            containing:
                "extern int __asan_flowhost_missing;\nint flowkit_plugin_entry(void) { return __asan_flowhost_missing; }\n"
        )
        let library = directory.path + "/libSanitized.so"
        let compiler = try Subprocess.run("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source])
        try #require(compiler.status == 0, "cc: \(compiler.standardError)")

        let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path: library) }

        #expect(
            error?.message
                == "the dynamic loader refused it: \(library): undefined symbol: __asan_flowhost_missing; the plugin was built with a sanitizer (swift test --sanitize=... writes the libraries of swift build unless given a --scratch-path of its own): build it again with swift build, and run sanitized tests with --scratch-path .build/sanitized"
        )
    }
}
