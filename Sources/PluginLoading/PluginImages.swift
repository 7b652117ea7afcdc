internal import CCrashHandler
import Glibc
import HostSupport

/// Every plugin image this process opened, with the plugin it was opened for and its code's addresses, for
/// the supervisor to lay a crash at the door of the plugin whose code crashed (see ``CrashBreadcrumb``).
///
/// Images are noted as they open, whether or not a breadcrumb is kept yet (a host loads its services'
/// plugins as it is made); once a breadcrumb's crash handler is installed (``attach(page:)``) each one is
/// also written to its page: its range to the table the crash handler scans, and a line
/// `image<TAB>START<TAB>END<TAB>PLUGIN<TAB>LIBRARY` (addresses in hex) for the supervisor. A service made
/// adds `service<TAB>PLUGIN<TAB>SERVICE<TAB>LIBRARY`, so that a crash in a lifecycle event can be laid
/// at the service's door.
package enum PluginImages {
    /// Where the lines start on the page: a 4-byte little-endian length, then the text.
    static let linesOffset = 16384
    static let linesCapacity = CrashBreadcrumb.pageSize - linesOffset - 4

    private struct State: Sendable {
        package var lines: [String] = []
        var services: Set<String> = []
        var ranges: [(start: UInt64, end: UInt64)] = []
        /// The plugin and library of each range, in the same order.
        var owners: [(plugin: String, library: String)] = []
        /// The breadcrumb page's address, once attached.
        var page: UInt?
        var written = 0
    }

    private static let state = PthreadMutex(State())

    /// Notes that `plugin` (from `library`, the file found through the search path) opened an image whose
    /// code spans `range`.
    package static func noteImage(plugin: String, library: String, range: Range<UInt64>) {
        let line =
            "image\t\(String(range.lowerBound, radix: 16))\t\(String(range.upperBound, radix: 16))\t"
            + "\(plugin)\t\(library)"
        state.withLock { state in
            state.lines.append(line)
            state.ranges.append((range.lowerBound, range.upperBound))
            state.owners.append((plugin, library))
            if state.page != nil { flowhost_crash_add_range(range.lowerBound, range.upperBound) }
            write(&state)
        }
    }

    /// Notes that `plugin`'s service `service` was made.
    package static func noteService(plugin: String, service: String, library: String) {
        let line = "service\t\(plugin)\t\(service)\t\(library)"
        state.withLock { state in
            guard state.services.insert(line).inserted else { return }
            state.lines.append(line)
            write(&state)
        }
    }

    /// Writes what was noted, and from now on what will be, to the page at `page`, whose crash handler is
    /// installed.
    static func attach(page: UnsafeMutableRawPointer) {
        state.withLock { state in
            state.page = UInt(bitPattern: page)
            state.written = 0
            for range in state.ranges { flowhost_crash_add_range(range.start, range.end) }
            write(&state)
        }
    }

    /// Writes the lines not yet on the page, then the length that makes them readable; lines past the
    /// page's end are left out.
    private static func write(_ state: inout State) {
        guard let address = state.page, let page = UnsafeMutableRawPointer(bitPattern: address) else { return }
        var length = Int(UInt32(littleEndian: page.load(fromByteOffset: linesOffset, as: UInt32.self)))
        if state.written == 0 { length = 0 }
        while state.written < state.lines.count {
            let bytes = Array((state.lines[state.written] + "\n").utf8)
            guard length + bytes.count <= linesCapacity else { break }
            bytes.withUnsafeBytes {
                (page + linesOffset + 4 + length).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            length += bytes.count
            state.written += 1
        }
        page.storeBytes(of: UInt32(length).littleEndian, toByteOffset: linesOffset, as: UInt32.self)
    }

    /// The plugin, and its library (the file found through the search path), whose image noted so far holds
    /// the code at `address`; `nil` for code of no plugin's.
    package static func plugin(holdingCodeAt address: UInt64) -> (plugin: String, library: String)? {
        state.withLock { owner(of: address, in: $0) }
    }

    /// The plugin, and its library, whose image holds the code at the first of `addresses` that one holds; `nil`
    /// when none does, or when another thread holds the images' lock: for a child that plugin code forked, where
    /// a lock held at the fork (a plugin loading on another thread) is never given back.
    package static func plugin(holdingCodeAtFirstOf addresses: [UInt64]) -> (plugin: String, library: String)? {
        let found = state.withLockIfFree { state -> (plugin: String, library: String)? in
            for address in addresses {
                if let owner = owner(of: address, in: state) { return owner }
            }
            return nil
        }
        return found ?? nil
    }

    /// The plugin and library of the image noted in `state` whose code holds `address`.
    private static func owner(of address: UInt64, in state: State) -> (plugin: String, library: String)? {
        state.ranges.indices.first { state.ranges[$0].start <= address && address < state.ranges[$0].end }
            .map { state.owners[$0] }
    }

    /// The plugin whose library a thread is opening now, and that thread (``opening(plugin:library:_:)``).
    private static let openingNow = PthreadMutex<(plugin: String, library: String, thread: pthread_t)?>(nil)

    /// Runs `body`, which opens `plugin`'s `library` on this thread: its constructors and entry point run there
    /// before its image is noted, so that ``openingOnThisThread()`` names it meanwhile.
    package static func opening<T, E: Error>(plugin: String, library: String, _ body: () throws(E) -> T) throws(E)
        -> T
    {
        openingNow.withLock { $0 = (plugin, library, pthread_self()) }
        defer { openingNow.withLock { $0 = nil } }
        return try body()
    }

    /// The plugin whose library the calling thread is opening (``opening(plugin:library:_:)``), if it is: code
    /// of that library's constructors or entry point, which no image noted yet holds. `nil` without waiting
    /// when another thread holds the lock.
    package static func openingOnThisThread() -> (plugin: String, library: String)? {
        let found = openingNow.withLockIfFree { opening -> (plugin: String, library: String)? in
            guard let opening, pthread_equal(opening.thread, pthread_self()) != 0 else { return nil }
            return (opening.plugin, opening.library)
        }
        return found ?? nil
    }

    /// The code range of the loaded image that holds `address` (an entry point's): its executable segments.
    package static func codeRange(holding address: UnsafeRawPointer) -> Range<UInt64>? {
        var start: UInt64 = 0
        var end: UInt64 = 0
        guard flowhost_image_text_range(address, &start, &end) == 0, start < end else { return nil }
        return start..<end
    }
}
