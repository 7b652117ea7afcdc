import FlowManifest
import Glibc
import PluginLoading
import Testing

/// A library whose `DT_HASH` table is forged so that a chain loops, and that states 2^32 - 1 symbols so that the
/// walk's bound is no bound: reading its symbol table, before any probe, is refused in a moment as corrupt. The
/// walk was bounded by the stated count alone, and `inspect` of such a file ran for hours.
struct LoopingHashChainTests {
    nonisolated static let hasCCompiler = access("/usr/bin/cc", X_OK) == 0

    @Test(.enabled(if: hasCCompiler, "needs a C compiler to build a library with only a DT_HASH table"))
    func aHashChainThatLoopsIsRefusedAtOnce() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.file("loop.c", containing: "int loop_answer(void) { return 42; }\n")
        let built = directory.path + "/libBuilt.so"
        let compiler = try Subprocess.run(
            "/usr/bin/cc", ["-shared", "-fPIC", "-Wl,--hash-style=sysv", "-o", built, source])
        try #require(compiler.status == 0, "cc: \(compiler.standardError)")
        var bytes = try Manifest.readFile(built, maxSize: PluginCopy.maxLibrarySize)
        let table = try #require(Self.hashSection(in: bytes), "no SHT_HASH section")

        // Every bucket leads to symbol 1, whose chain leads back to it, and the table claims 2^32 - 1 symbols.
        let buckets = Int(Self.word(bytes, at: table))
        Self.put(0xFFFF_FFFF, into: &bytes, at: table + 4)
        for bucket in 0..<buckets { Self.put(1, into: &bytes, at: table + 8 + bucket * 4) }
        Self.put(1, into: &bytes, at: table + 8 + (buckets + 1) * 4)
        let library = try directory.file("libLoop.so", containing: bytes)

        let inspect = try ChildProcess.flowhost(
            ["inspect", library], connection: .pipes, environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        #expect(try inspect.waitForExit(within: .seconds(20)) == .exited(65))
        #expect(String(decoding: inspect.transcript, as: UTF8.self).contains("a DT_HASH chain does not end"))
    }

    /// The file offset of the library's `SHT_HASH` section (ELF64, little-endian).
    private static func hashSection(in bytes: [UInt8]) -> Int? {
        let headers = Int(word(bytes, at: 0x28)) | Int(word(bytes, at: 0x2C)) << 32
        let size = Int(bytes[0x3A]) | Int(bytes[0x3B]) << 8
        let count = Int(bytes[0x3C]) | Int(bytes[0x3D]) << 8
        for index in 0..<count where word(bytes, at: headers + index * size + 4) == 5 {
            let at = headers + index * size + 0x18
            return Int(word(bytes, at: at)) | Int(word(bytes, at: at + 4)) << 32
        }
        return nil
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
