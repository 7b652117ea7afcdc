internal import CCrashHandler
import Glibc

extension CrashBreadcrumb {
    /// Everything a host left on its breadcrumb page: what the supervisor reads once the host is gone.
    package struct Page: Sendable {
        /// The crumb on top when the host ended; `nil` too when it was cut (``CrashBreadcrumb/CrumbFlags/cut``).
        package var crumb: Crumb?
        /// What the crash handler recorded: a signal, or an exit the host did not mark as its own.
        package var crash: CrashRecord?
        /// The plugin images the host opened.
        package var images: [Image] = []
        /// The services the host made: plugin and service names.
        package var services: [(plugin: String, service: String)] = []
        /// The thread that entered the last crumb (its `gettid`); 0 when none was entered.
        package var crumbThread: Int32 = 0
        /// The last crumb entered for each plugin, by plugin.
        package var lastCrumbs: [String: Crumb] = [:]
        /// Where the code of the library being loaded was, as the crash handler found it in the host's
        /// mappings (the image is noted only once it has opened); `nil` when nothing was loading, or no crash
        /// was recorded.
        package var loadingCode: Range<UInt64>?

        /// One plugin image: whose it is, and where its code was.
        package struct Image: Sendable, Hashable {
            package var plugin: String
            package var library: String
            package var code: Range<UInt64>
        }

        /// The page in the file at `path`; `nil` when it cannot be read.
        package init?(path: String) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: CrashBreadcrumb.pageSize)
            var count = 0
            while count < bytes.count {
                let got = bytes.withUnsafeMutableBytes {
                    Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count)
                }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                count += got
            }
            guard count >= 1024 else { return nil }
            self.init(bytes: bytes[..<count])
        }

        /// The page in `bytes`, at most a page; a page cut short has no images, or no crash record.
        init(bytes: ArraySlice<UInt8>) {
            let bytes = Array(bytes)
            let crumbLength = Int(bytes[0]) | Int(bytes[1]) << 8
            let flags = CrashBreadcrumb.CrumbFlags(rawValue: bytes[2])
            if crumbLength > 0, crumbLength <= CrashBreadcrumb.crumbCapacity, !flags.contains(.cut) {
                crumb = Crumb(
                    fields: Self.text(bytes, 3..<(3 + crumbLength)).split(
                        separator: "\n", omittingEmptySubsequences: false))
                crumb?.isLoading = flags.contains(.loading)
            }
            crash = CrashRecord(bytes: bytes)
            let loading = Int(FLOWHOST_CRASH_LOADING_OFFSET)
            if crash != nil, bytes.count >= loading + 32 {
                let start = Self.number(bytes, at: loading + 16)
                let end = Self.number(bytes, at: loading + 24)
                if start < end { loadingCode = start..<end }
            }
            crumbThread = (0..<4).reduce(0) { $0 | Int32(bytes[CrashBreadcrumb.threadOffset + $1]) << (8 * $1) }
            for line in Self.lines(bytes, at: CrashBreadcrumb.lastCrumbsOffset) {
                if let last = Crumb(fields: line.split(separator: "\t", omittingEmptySubsequences: false)),
                    !last.plugin.isEmpty
                {
                    lastCrumbs[last.plugin] = last
                }
            }
            for line in Self.lines(bytes, at: PluginImages.linesOffset) {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                if fields.count == 5, fields[0] == "image", let start = UInt64(fields[1], radix: 16),
                    let end = UInt64(fields[2], radix: 16), start < end
                {
                    images.append(Image(plugin: fields[3], library: fields[4], code: start..<end))
                } else if fields.count == 4, fields[0] == "service" {
                    services.append((fields[1], fields[2]))
                }
            }
        }

        /// The image whose code holds `address`, if a plugin's does.
        package func image(holding address: UInt64) -> Image? {
            images.last { $0.code.contains(address) }
        }

        /// The 8-byte little-endian number at `offset`.
        private static func number(_ bytes: [UInt8], at offset: Int) -> UInt64 {
            (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
        }

        private static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
            String(decoding: bytes[range.clamped(to: 0..<bytes.count)], as: UTF8.self)
        }

        /// The lines of the region at `offset`: a 4-byte little-endian length, then the text.
        private static func lines(_ bytes: [UInt8], at offset: Int) -> [Substring] {
            guard offset + 4 <= bytes.count else { return [] }
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            guard length > 0, offset + 4 + length <= bytes.count else { return [] }
            let text = Self.text(bytes, (offset + 4)..<(offset + 4 + length))
            return text.split(separator: "\n")
        }
    }

    /// What the crash handler wrote (`flowhost_crash_record` in `CCrashHandler.h`).
    package struct CrashRecord: Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// The host got `signal`; the faulting address is `address`, the program counter `pc`.
            case signal(Int32)
            /// Code called `exit(status)`, and it was not the host's own exit.
            case exit(Int32)
        }

        package var kind: Kind
        package var code: Int32
        package var address: UInt64
        package var pc: UInt64
        /// The thread it happened on (its `gettid`).
        package var thread: Int32
        /// The host's process id (its `getpid`).
        package var process: Int32
        /// Return addresses by walking frame pointers, innermost first.
        package var frames: [UInt64]
        /// Plugin code addresses found by scanning the stack up from where it happened.
        package var scanned: [UInt64]
        /// The start routine of the thread it happened on (what `pthread_create` was given), read from the
        /// thread's descriptor; 0 when not known (the main thread).
        package var startRoutine: UInt64

        static let offset = Int(FLOWHOST_CRASH_RECORD_OFFSET)
        static let magic: UInt32 = 0x5243_4846

        /// The process that sent the signal, when it was sent by `kill`, `sigqueue` or `tgkill` (the handler
        /// writes it in place of the faulting address); `nil` for a fault the hardware raised, and an exit.
        package var sender: Int32? {
            guard case .signal = kind, [SI_USER, SI_QUEUE, SI_TKILL].contains(Int(code)) else { return nil }
            return Int32(truncatingIfNeeded: address)
        }

        /// Whether it is signal `number` that another process sent (`kill -SEGV`), not a fault of the host's,
        /// nor a signal it raised itself (`abort`).
        package func wasSentFromOutside(_ number: Int32) -> Bool {
            guard case .signal(number) = kind, let sender else { return false }
            return sender != process
        }

        /// The addresses that say whose code it was, most telling first: the program counter, the frames,
        /// the stack scan, and last the thread's start routine, its outermost frame (gone from the stack when
        /// the routine jumped into libc's code, or out of the scan's reach below a deep stack).
        package var addresses: [UInt64] {
            (pc == 0 ? [] : [pc]) + frames + scanned + (startRoutine == 0 ? [] : [startRoutine])
        }

        init?(bytes: [UInt8]) {
            guard bytes.count >= Self.offset + 440 else { return nil }
            func load<T: FixedWidthInteger>(_ at: Int, as: T.Type) -> T {
                var value: T = 0
                for index in 0..<MemoryLayout<T>.size {
                    value |= T(truncatingIfNeeded: bytes[Self.offset + at + index]) << (8 * index)
                }
                return value
            }
            guard load(0, as: UInt32.self) == Self.magic else { return nil }
            let number = load(8, as: Int32.self)
            switch load(4, as: UInt32.self) {
            case 1: kind = .signal(number)
            case 2: kind = .exit(number)
            default: return nil
            }
            code = load(12, as: Int32.self)
            address = load(16, as: UInt64.self)
            pc = load(24, as: UInt64.self)
            thread = load(32, as: Int32.self)
            process = load(36, as: Int32.self)
            let frameCount = min(Int(load(40, as: UInt32.self)), 32)
            let scannedCount = min(Int(load(44, as: UInt32.self)), 16)
            frames = (0..<frameCount).map { load(48 + 8 * $0, as: UInt64.self) }
            scanned = (0..<scannedCount).map { load(304 + 8 * $0, as: UInt64.self) }
            startRoutine = load(432, as: UInt64.self)
        }
    }
}
