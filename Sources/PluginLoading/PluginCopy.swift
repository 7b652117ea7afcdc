import CProcessControl
import Glibc
import HostSupport

/// A plugin library's bytes, read once from its file, checked, and sealed into a private copy that is what
/// `dlopen` opens.
///
/// Opening the library's own path would open whatever is there at that moment: a `sha256` pin checked on
/// the file could be raced by swapping the file between the check and the `dlopen`, and copying a new build
/// over a loaded library rewrites the pages the running image executes (SIGSEGV, SIGBUS when truncated).
/// A copy made from the bytes that were hashed, that nobody else can write, closes both holes.
///
/// The copy is a sealed `memfd` (`F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL`: not even the
/// host can change it) opened through `/proc/self/fd/N`. Its descriptor stays open for as long as the
/// process lives, like the image itself, so that `N` and the path are never used again: `dlopen` of a path
/// it has opened before returns the cached image. Where memfds are unavailable (an old kernel, or
/// `vm.memfd_noexec = 2`), the copy is a file in a fresh directory of mode 0700 under `$TMPDIR`, on a path
/// nobody else can change, unlinked as soon as it is opened; the directory stays as long as the image.
package struct PluginCopy {
    /// The largest library read: 1 GiB.
    package static let maxLibrarySize = 1 << 30

    /// The library file as found: what messages name.
    package let source: String
    /// The bytes read, which the copy holds.
    let bytes: [UInt8]
    /// Whether the libraries the plugin needs are left unchecked (``PluginDependencies``), as
    /// `--allow-insecure-plugins` asks.
    let allowsInsecure: Bool

    /// Reads the regular file `source`, after checking its permissions unless `allowInsecure`.
    ///
    /// - Throws: ``PluginLoadError`` naming `source`: not found, not a regular file, too large, insecure.
    package init(reading source: String, allowInsecure: Bool) throws(PluginLoadError) {
        do {
            try InputFile.checkRegular(source, what: "plugin library")
        } catch {
            throw PluginLoadError(source, error)
        }
        if !allowInsecure { try PluginPermissions.check(source) }
        do {
            bytes = try InputFile.read(source, what: "plugin library", limit: Self.maxLibrarySize)
        } catch {
            throw PluginLoadError(source, error)
        }
        self.source = source
        allowsInsecure = allowInsecure
    }

    /// The SHA-256 of the bytes, as `sha256sum` prints it: computed on each use, for a pin to check.
    package var sha256: String { SHA256.hex(bytes) }

    /// A 64-bit fingerprint of the bytes, to tell a library that did not change from a rebuilt one at a
    /// fraction of SHA-256's cost (a reload hashed whole libraries for that: 91% of its instructions). Not a
    /// security check, which a `sha256` pin is: a collision could only make a reload skip a changed library.
    package var fingerprint: UInt64 {
        bytes.withUnsafeBytes { raw in
            var lanes: (UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15 ^ UInt64(raw.count), 0xC2B2_AE3D_27D4_EB4F)
            var offset = 0
            while offset + 16 <= raw.count {
                lanes.0 = Self.mix(lanes.0, raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                lanes.1 = Self.mix(lanes.1, raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                offset += 16
            }
            var tail: UInt64 = 0
            for index in offset..<raw.count { tail = tail << 8 | UInt64(raw[index]) }
            return Self.mix(Self.mix(lanes.0, tail), lanes.1)
        }
    }

    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        var mixed = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 29
        return mixed
    }

    /// Throws unless the bytes' SHA-256 is `expected`; without a pin, hashes nothing.
    package func verify(sha256 expected: String?) throws(PluginLoadError) {
        guard let expected else { return }
        let digest = sha256
        guard digest != expected else { return }
        throw PluginLoadError(
            file: source, kind: .checksumMismatch,
            message:
                "sha256 is \(digest), the manifest expects \(expected); rebuild it or update the manifest's sha256")
    }

    /// Seals the bytes into a private copy and passes its path to `body`, which opens it.
    ///
    /// - Parameters:
    ///   - label: A name for the copy, such as `libWelcomePlugin.gen2.so`, shown in `/proc/PID/maps`.
    ///   - body: Opens the copy; returns whether the copy's image stays mapped (the descriptor is then kept).
    func withSealedCopy<Result>(
        label: String, _ body: (String) throws(PluginLoadError) -> (Result, keepsMapping: Bool)
    ) throws(PluginLoadError) -> Result {
        if let descriptor = sealedMemoryFile(label: label) {
            var keep = false
            defer { if !keep { close(descriptor) } }
            do {
                let (result, keepsMapping) = try body("/proc/self/fd/\(descriptor)")
                keep = keepsMapping
                return result
            } catch {
                keep = error.leftImageMapped
                throw error
            }
        }
        return try withPrivateFile(label: label, body)
    }

    /// A sealed memfd holding the bytes, or `nil` when this kernel cannot make one.
    private func sealedMemoryFile(label: String) -> Int32? {
        let cloexec: UInt32 = 0x0001
        let allowSealing: UInt32 = 0x0002
        let executable: UInt32 = 0x0010
        // MFD_EXEC keeps a kernel with vm.memfd_noexec = 1 from refusing to map it; older kernels reject it.
        var descriptor = flowhost_memfd_create(label, cloexec | allowSealing | executable)
        if descriptor < 0, errno == EINVAL { descriptor = flowhost_memfd_create(label, cloexec | allowSealing) }
        guard descriptor >= 0 else { return nil }
        let sealSeal: Int32 = 0x0001
        let sealShrink: Int32 = 0x0002
        let sealGrow: Int32 = 0x0004
        let sealWrite: Int32 = 0x0008
        let addSeals: Int32 = 1033
        guard writeAll(to: descriptor),
            fcntl(descriptor, addSeals, sealWrite | sealShrink | sealGrow | sealSeal) == 0,
            Self.reachesDescriptorsByPath(descriptor)
        else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Whether `/proc/self/fd/N`, the path `dlopen` is given, leads to descriptor N: checked with the first
    /// copy and remembered, since `/proc` does not come and go under a running process. The check walks a
    /// path through procfs, about 10 µs, which every hot swap paid.
    private static func reachesDescriptorsByPath(_ descriptor: Int32) -> Bool {
        procDescriptorPaths.withLock { known in
            if let known { return known }
            let reaches = access("/proc/self/fd/\(descriptor)", R_OK) == 0
            known = reaches
            return reaches
        }
    }

    private static let procDescriptorPaths = PthreadMutex<Bool?>(nil)

    /// Writes the bytes to a file of its own in a fresh private directory (``PrivateTemporaryDirectory``, in
    /// `base`), passes its path to `body`, then removes the file (the mapped image stays valid) and, unless the
    /// image stays mapped, the directory.
    ///
    /// The directory must be on a path nobody else can change: in a directory others can write without the
    /// sticky bit, another user could rename it away between the copy's writing and its loading and put a
    /// directory of theirs, with a library of theirs, under its name.
    ///
    /// An image that stays keeps the directory's name as its `$ORIGIN`, where the loader looks for what the
    /// plugin's code opens by name later: removed, the directory could be made again in `$TMPDIR` by anyone.
    /// So it stays, empty and private, for as long as the image: the life of the process, at whose exit it is
    /// removed (``removeKeptDirectories()``). A process that ends without its `atexit` handlers (a crash, a
    /// kill, a probe's library crashing it) leaves it, with its ``CopyDirectoryLock`` let go, for the first
    /// private copy of a later process to remove.
    func withPrivateFile<Result>(
        label: String, in base: String = PrivateTemporaryDirectory.base,
        _ body: (String) throws(PluginLoadError) -> (Result, keepsMapping: Bool)
    ) throws(PluginLoadError) -> Result {
        CopyDirectoryLock.sweepOnce(in: base)
        let directory: String
        do {
            directory = try PrivateTemporaryDirectory.make(prefix: "flowhost-\(getpid())", in: base)
        } catch {
            guard error.isUntrusted else {
                throw PluginLoadError(
                    file: source, kind: .unreadable,
                    message: "cannot create a directory for a private copy in \(error.base): \(error.reason)")
            }
            let who = error.writers.map {
                "; \($0) can put another library in the copy's place before it is loaded"
            }
            throw PluginLoadError(
                file: source, kind: .insecure,
                message:
                    "cannot make a private copy of it in \(error.base): \(error.reason)\(who ?? ""); set TMPDIR to a directory of your own"
            )
        }
        let lock = CopyDirectoryLock.hold(directory)
        var keepsDirectory = false
        defer {
            if keepsDirectory {
                Self.keep(directory, lock: lock)
            } else {
                CopyDirectoryLock.release(lock, in: directory)
                rmdir(directory)
            }
        }
        let path = "\(directory)/\(label)"
        let descriptor = NewFile.create(path, mode: 0o500)
        guard descriptor >= 0 else {
            throw PluginLoadError(
                file: source, kind: .unreadable,
                message: "cannot write a private copy: \(String(cString: strerror(errno)))")
        }
        defer { unlink(path) }
        let written = writeAll(to: descriptor)
        close(descriptor)
        guard written else {
            throw PluginLoadError(file: source, kind: .unreadable, message: "cannot write a private copy: short write")
        }
        do {
            let (result, keepsMapping) = try body(path)
            keepsDirectory = keepsMapping
            return result
        } catch {
            keepsDirectory = error.leftImageMapped
            throw error
        }
    }

    /// The private directories kept for the images loaded from them, with the descriptors holding their locks,
    /// removed at exit.
    private static let keptDirectories = PthreadMutex<[(directory: String, lock: Int32)]>([])

    /// Keeps `directory`, and its `lock`, until the process exits; the first one kept asks for their removal
    /// then.
    private static func keep(_ directory: String, lock: Int32) {
        let isFirst = keptDirectories.withLock { kept in
            kept.append((directory, lock))
            return kept.count == 1
        }
        guard isFirst else { return }
        HostProcess.remember()
        // A child plugin code forked exits with the host's directories still in use.
        atexit { if HostProcess.isThisOne { PluginCopy.removeKeptDirectories() } }
    }

    /// Removes the directories kept for images (empty: each copy was removed once opened). Called at exit, when
    /// no more plugin code is loaded, and by a probe before it exits without `atexit` handlers.
    package static func removeKeptDirectories() {
        keptDirectories.withLock { kept in
            for (directory, lock) in kept {
                CopyDirectoryLock.release(lock, in: directory)
                rmdir(directory)
            }
            kept.removeAll()
        }
    }

    private func writeAll(to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}

extension PluginLoadError {
    /// The error for reading library `file` failing with `failure`.
    package init(_ file: String, _ failure: InputFile.Failure) {
        let kind: Kind =
            switch failure.kind {
            case .notFound: .notFound
            case .notRegular: .notRegularFile
            case .tooLarge: .tooLarge
            case .symlinkLoop, .unreadable: .unreadable
            }
        let hint = failure.kind == .notRegular ? "; \(Self.pathHint)" : ""
        self.init(file: file, kind: kind, message: failure.message + hint)
    }

    /// This error with `copy` replaced by `source` wherever it is named: messages name the library the
    /// person built, not the private copy.
    func naming(_ source: String, insteadOf copy: String) -> PluginLoadError {
        var error = self
        error.file = source
        error.message = error.message.split(separator: copy, omittingEmptySubsequences: false).joined(
            separator: source)
        return error
    }
}
