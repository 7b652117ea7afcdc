import Glibc
import Testing

@testable import PluginLoading

/// A breadcrumb page in a temporary file: crumbs written by ``CrashBreadcrumb``, then a crash record and the
/// image lines as the crash handler and ``PluginImages`` write them. Plugin `crashy`'s code is at
/// 0x5000..<0x6000 (with service `Moody`), `welcome`'s at 0x2000..<0x3000.
struct Page {
    static let callingThread: Int32 = 7
    let directory: TemporaryDirectory
    var path: String { directory.path + "/breadcrumb" }

    @MainActor
    static func written(_ crumbs: (CrashBreadcrumb) -> Void) throws -> Page {
        let page = Page(directory: try TemporaryDirectory())
        let breadcrumb = try CrashBreadcrumb(path: page.path)
        crumbs(breadcrumb)
        let lines = """
            image\t2000\t3000\twelcome\t/p/libWelcome.so
            image\t5000\t6000\tcrashy\t/p/libCrashy.so
            service\tcrashy\tMoody\t/p/libCrashy.so

            """
        var bytes = try page.bytes()
        put(UInt32(lines.utf8.count), at: PluginImages.linesOffset, in: &bytes)
        bytes.replaceSubrange(
            (PluginImages.linesOffset + 4)..<(PluginImages.linesOffset + 4 + lines.utf8.count), with: Array(lines.utf8))
        // The crumbs' thread, as the calling thread.
        put(UInt32(bitPattern: callingThread), at: CrashBreadcrumb.threadOffset, in: &bytes)
        try page.write(bytes)
        return page
    }

    func crash(signal: Int32, pc: UInt64, frames: [UInt64] = [], thread: Int32, startRoutine: UInt64 = 0) throws
        -> Page
    {
        try record(kind: 1, number: signal, pc: pc, frames: frames, thread: thread, startRoutine: startRoutine)
    }

    func crash(exit status: Int32, frames: [UInt64], thread: Int32) throws -> Page {
        try record(kind: 2, number: status, pc: 0, frames: frames, thread: thread)
    }

    /// The code of the library being loaded, as the crash handler finds it in the host's mappings.
    func loadingCode(_ code: Range<UInt64>) throws -> Page {
        var bytes = try bytes()
        Self.put(code.lowerBound, at: 1536 + 16, in: &bytes)
        Self.put(code.upperBound, at: 1536 + 24, in: &bytes)
        try write(bytes)
        return self
    }

    func read() throws -> CrashBreadcrumb.Page { try #require(CrashBreadcrumb.Page(path: path)) }

    private func record(
        kind: UInt32, number: Int32, pc: UInt64, frames: [UInt64], thread: Int32, startRoutine: UInt64 = 0
    ) throws -> Page {
        var bytes = try bytes()
        let base = 1024
        Self.put(0x5243_4846 as UInt32, at: base, in: &bytes)
        Self.put(kind, at: base + 4, in: &bytes)
        Self.put(UInt32(bitPattern: number), at: base + 8, in: &bytes)
        Self.put(pc, at: base + 24, in: &bytes)
        Self.put(UInt32(bitPattern: thread), at: base + 32, in: &bytes)
        Self.put(UInt32(frames.count), at: base + 40, in: &bytes)
        for (index, frame) in frames.enumerated() { Self.put(frame, at: base + 48 + 8 * index, in: &bytes) }
        Self.put(startRoutine, at: base + 432, in: &bytes)
        try write(bytes)
        return self
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<MemoryLayout<T>.size {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }

    private func bytes() throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: CrashBreadcrumb.pageSize)
        try #require(Glibc.read(descriptor, &bytes, bytes.count) == bytes.count)
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }
}
