import Glibc
import Testing

@testable import PluginLoading

/// Reading a breadcrumb page back and laying the crash at a plugin's door, without a crash: pages written
/// as a host and its crash handler write them.
@MainActor
struct CrashCulpritTests {
    private let crashy = CrashBreadcrumb.Crumb(
        plugin: "crashy", library: "/p/libCrashy.so", place: "crashy.Trap", entryPoint: .manager("Trap"))
    private let welcome = CrashBreadcrumb.Crumb(
        plugin: "welcome", library: "/p/libWelcome.so", place: "welcome.Launch", entryPoint: .manager("Launch"))

    @Test func aCrashInTheCallOnTopIsLaidAtItsEntryPoint() throws {
        let page = try Page.written { $0.enter(crashy) }
            .crash(signal: SIGILL, pc: 0x5000, thread: Page.callingThread)

        let culprit = try #require(page.read().culprit)

        #expect(
            culprit
                == CrashCulprit(
                    plugin: "crashy", library: "/p/libCrashy.so", place: "crashy.Trap", entryPoints: [.manager("Trap")])
        )
    }

    @Test func aCrashOnAnotherThreadIsLaidAtThePluginWhoseCodeRanAndItsLastCall() throws {
        // The host is in welcome's manager; crashy's thread crashes, its code a few frames up.
        let page = try Page.written {
            $0.enter(crashy)
            $0.leave()
            $0.enter(welcome)
        }.crash(signal: SIGSEGV, pc: 0x9999_0000, frames: [0x1, 0x7000, 0x5004], thread: 4242)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.plugin == "crashy")
        #expect(culprit.place == "a background thread, after crashy.Trap")
        #expect(culprit.entryPoints == [.manager("Trap")])
    }

    @Test func withoutPluginCodeOnTheStackTheCallOnTopIsBlamedAndWithoutOneNobody() throws {
        let inCall = try Page.written { $0.enter(welcome) }.crash(signal: SIGSEGV, pc: 0x1, thread: 4242)
        let idle = try Page.written { _ in }.crash(signal: SIGSEGV, pc: 0x1, thread: 4242)

        #expect(try inCall.read().culprit?.plugin == "welcome")
        #expect(try idle.read().culprit == nil)
    }

    @Test func aCrashInALifecycleEventIsLaidAtTheServicesOfThePluginWhoseCodeRan() throws {
        let page = try Page.written {
            $0.enter(CrashBreadcrumb.Crumb(plugin: "", library: "", place: "lifecycle event 'background'"))
        }.crash(signal: SIGILL, pc: 0x5010, thread: Page.callingThread)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.place == "lifecycle event 'background' (crashy.Moody)")
        #expect(culprit.entryPoints == [.service("Moody")])
    }

    /// A library being loaded has no image on the page yet: on the loading thread, the crash is its own,
    /// whole, even with another plugin's code further up the stack (the manager whose request needed it).
    @Test func aCrashOnTheThreadLoadingALibraryIsLaidAtThatLibraryWhole() throws {
        let loading = CrashBreadcrumb.Crumb.loading(plugin: "bad", library: "/p/libBad.so")
        let page = try Page.written {
            $0.enter(welcome)
            $0.enter(loading)
        }.crash(signal: SIGABRT, pc: 0x9999_0000, frames: [0x7000, 0x2010], thread: Page.callingThread)

        let read = try page.read()

        #expect(read.crumb == loading, "the page keeps that the crumb is a load")
        #expect(
            read.culprit
                == CrashCulprit(
                    plugin: "bad", library: "/p/libBad.so", place: "loading its library", entryPoints: [],
                    whileLoading: true))
    }

    @Test func aCrashOnAnotherThreadWhileALibraryLoadsIsLaidAtThePluginWhoseCodeRan() throws {
        let page = try Page.written {
            $0.enter(crashy)
            $0.leave()
            $0.enter(.loading(plugin: "bad", library: "/p/libBad.so"))
        }.crash(signal: SIGSEGV, pc: 0x5008, thread: 4242)

        let culprit = try #require(page.read().culprit)

        #expect(culprit.plugin == "crashy")
        #expect(culprit.place == "a background thread, after crashy.Trap")
        #expect(!culprit.whileLoading)
    }

    @Test func anExitIsReadAsOneWithItsStatus() throws {
        let page = try Page.written { _ in }.crash(exit: 3, frames: [0x5020], thread: 4242).read()

        #expect(page.crash?.kind == .exit(3))
        #expect(page.culprit?.place == "a background thread")
        #expect(page.culprit?.entryPoints == [])
    }

    @Test func entryPointsAreReadOnlyFromTheirOwnWellFormedKeys() {
        #expect(PluginEntryPoint(key: "action fragile trap") == .action("trap", of: "fragile"))
        #expect(PluginEntryPoint(key: "manager Trap")?.description == "manager 'Trap'")
        for forged in ["manager", "manager Tr\u{1B}ap", "manager a b", "plugin x", "action fragile", ""] {
            #expect(PluginEntryPoint(key: forged) == nil, "\(forged)")
        }
    }
}

// MARK: - Test Helpers

/// A breadcrumb page in a temporary file: crumbs written by ``CrashBreadcrumb``, then a crash record and the
/// image lines as the crash handler and ``PluginImages`` write them. Plugin `crashy`'s code is at
/// 0x5000..<0x6000 (with service `Moody`), `welcome`'s at 0x2000..<0x3000.
private struct Page {
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

    func crash(signal: Int32, pc: UInt64, frames: [UInt64] = [], thread: Int32) throws -> Page {
        try record(kind: 1, number: signal, pc: pc, frames: frames, thread: thread)
    }

    func crash(exit status: Int32, frames: [UInt64], thread: Int32) throws -> Page {
        try record(kind: 2, number: status, pc: 0, frames: frames, thread: thread)
    }

    func read() throws -> CrashBreadcrumb.Page { try #require(CrashBreadcrumb.Page(path: path)) }

    private func record(kind: UInt32, number: Int32, pc: UInt64, frames: [UInt64], thread: Int32) throws -> Page {
        var bytes = try bytes()
        let base = 1024
        Self.put(0x5243_4846 as UInt32, at: base, in: &bytes)
        Self.put(kind, at: base + 4, in: &bytes)
        Self.put(UInt32(bitPattern: number), at: base + 8, in: &bytes)
        Self.put(pc, at: base + 24, in: &bytes)
        Self.put(UInt32(bitPattern: thread), at: base + 32, in: &bytes)
        Self.put(UInt32(frames.count), at: base + 40, in: &bytes)
        for (index, frame) in frames.enumerated() { Self.put(frame, at: base + 48 + 8 * index, in: &bytes) }
        try write(bytes)
        return self
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<MemoryLayout<T>.size {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }

    private func bytes() throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: CrashBreadcrumb.pageSize)
        try #require(Glibc.read(descriptor, &bytes, bytes.count) == bytes.count)
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }
}
