import FlowKit
import Glibc

/// Where a supervised host is in plugin code, kept in a shared memory page that outlives the process: after
/// the host dies of a signal, its supervisor reads which plugin it was running, and in which manager or
/// action (`flowhost run --supervise`).
///
/// The host enters a crumb before it calls into a plugin (resolving and starting a manager, triggering a
/// module's action) and leaves it once the call returns; nested calls stack, so a crash after a nested
/// request has returned is laid at the outer caller's door. Only the top of the stack is written to the
/// page: a few bytes copied per call, no system call.
public final class CrashBreadcrumb {
    /// One call into a plugin.
    public struct Crumb: Sendable, Hashable {
        /// The plugin's name in the manifest.
        public var plugin: String
        /// The plugin's library, as found through the search path (not the private copy loaded).
        public var library: String
        /// What was running: `crashy.Trap` for a manager, `action 'trap' of fragile` for an action.
        public var place: String

        public init(plugin: String, library: String, place: String) {
            self.plugin = plugin
            self.library = library
            self.place = place
        }
    }

    /// The page's size; a crumb longer than fits is cut.
    static let pageSize = 4096
    private let page: UnsafeMutableRawPointer
    private var stack: [(crumb: Crumb, request: CoordinationRequestName?)] = []

    /// A breadcrumb written to the file at `path`, created or emptied.
    ///
    /// - Throws: ``FlowError`` when the file cannot be created or mapped.
    public init(path: String) throws(FlowError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create \(path)") }
        defer { close(descriptor) }
        guard ftruncate(descriptor, off_t(Self.pageSize)) == 0 else { throw Self.failure("cannot size \(path)") }
        guard let mapped = mmap(nil, Self.pageSize, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
            mapped != MAP_FAILED
        else { throw Self.failure("cannot map \(path)") }
        page = mapped
    }

    deinit { munmap(page, Self.pageSize) }

    /// The crumb on top now, if any.
    public var current: Crumb? { stack.last?.crumb }

    /// Records that the host is about to call into `crumb`'s plugin, for `request` when the call is a
    /// request's manager (the request's end, ``leave(request:)``, leaves it).
    public func enter(_ crumb: Crumb, for request: CoordinationRequestName? = nil) {
        stack.append((crumb, request))
        write(crumb)
    }

    /// Records that the call entered last has returned.
    public func leave() {
        guard !stack.isEmpty else { return }
        stack.removeLast()
        write(stack.last?.crumb)
    }

    /// Leaves the crumb entered for `request`, when it is the one on top; a request that ended before its
    /// manager was made (a guard refused it) entered none.
    public func leave(request: CoordinationRequestName) {
        if stack.last?.request == request { leave() }
    }

    /// The crumb in the file at `path`: what a host that died was running, or `nil` when it was in none.
    public static func read(path: String) -> Crumb? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: pageSize)
        guard Glibc.read(descriptor, &bytes, pageSize) == pageSize else { return nil }
        let length = Int(bytes[0]) | Int(bytes[1]) << 8
        guard length > 0, length <= pageSize - 2 else { return nil }
        let fields = String(decoding: bytes[2..<(2 + length)], as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        return Crumb(plugin: String(fields[0]), library: String(fields[1]), place: String(fields[2]))
    }

    /// Writes `crumb` as its length (2 bytes, little-endian) then `plugin\nlibrary\nplace`; nothing, as 0.
    private func write(_ crumb: Crumb?) {
        guard let crumb else {
            page.storeBytes(of: 0, toByteOffset: 0, as: UInt16.self)
            return
        }
        var text = Array("\(crumb.plugin)\n\(crumb.library)\n\(crumb.place)".utf8)
        if text.count > Self.pageSize - 2 { text.removeLast(text.count - (Self.pageSize - 2)) }
        // The text first, then the length that makes it readable.
        text.withUnsafeBytes { (page + 2).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        page.storeBytes(of: UInt16(text.count).littleEndian, toByteOffset: 0, as: UInt16.self)
    }

    private static func failure(_ what: String) -> FlowError {
        FlowError("\(what) for the supervisor's breadcrumb: \(String(cString: strerror(errno)))")
    }
}
