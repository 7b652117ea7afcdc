import Glibc

/// Checks a file's ELF header before `dlopen` sees it, so that common mistakes get a precise message
/// instead of the dynamic loader's.
enum ELFCheck {
    /// The ELF machine this host runs on.
    static let hostMachine: UInt16 = {
        #if arch(x86_64)
            return 62
        #elseif arch(arm64)
            return 183
        #else
            return 0
        #endif
    }()

    static func machineName(_ machine: UInt16) -> String {
        switch machine {
        case 3: "i386"
        case 40: "arm"
        case 62: "x86_64"
        case 183: "aarch64"
        case 243: "riscv64"
        default: "machine \(machine)"
        }
    }

    /// Throws unless `path` is a 64-bit little-endian ELF shared object for this machine.
    ///
    /// - Parameter contents: The file's bytes, when they are at hand: they are checked rather than read again.
    static func check(_ path: String, contents: [UInt8]? = nil) throws(PluginLoadError) {
        let header: [UInt8]
        if let contents { header = Array(contents.prefix(64)) } else { header = try readPrefix(path, count: 64) }
        let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
        // The first bytes of an ELF file, cut short: a build still writing it, or a broken copy.
        guard header.count >= 20 || header.isEmpty || !magic.starts(with: header.prefix(4)) else {
            throw PluginLoadError(
                file: path, kind: .incomplete,
                message:
                    "is truncated: \(header.count) bytes, shorter than an ELF header; wait for the build to finish or copy it again"
            )
        }
        guard header.starts(with: magic) else {
            throw PluginLoadError(
                file: path, kind: .notELF,
                message:
                    "not an ELF shared object (\(describePrefix(header))); \(PluginLoadError.pathHint)")
        }
        let type = UInt16(header[16]) | UInt16(header[17]) << 8
        let machine = UInt16(header[18]) | UInt16(header[19]) << 8
        guard type == 3 else {
            let what = type == 2 ? "an executable" : type == 1 ? "a relocatable object (.o)" : "ELF type \(type)"
            throw PluginLoadError(
                file: path, kind: .notSharedObject,
                message:
                    "is \(what), not a shared object; build the plugin as a `.library(type: .dynamic)` product")
        }
        guard machine == hostMachine else {
            throw PluginLoadError(
                file: path, kind: .wrongArchitecture,
                message:
                    "built for \(machineName(machine)), this host is \(machineName(hostMachine)); rebuild the plugin on this machine"
            )
        }
        guard header.count == 64 else {
            throw PluginLoadError(
                file: path, kind: .incomplete,
                message:
                    "is truncated: \(header.count) bytes, shorter than an ELF header; wait for the build to finish or copy it again"
            )
        }
        guard header[4] == 2 else {
            throw PluginLoadError(
                file: path, kind: .notSharedObject,
                message: "is not a 64-bit ELF file; rebuild the plugin on this machine")
        }
        // A truncated file (a build still writing it, a broken copy) would crash the dynamic loader.
        let size: UInt64
        if let contents {
            size = UInt64(contents.count)
        } else {
            var status = stat()
            guard stat(path, &status) == 0 else { return }
            size = UInt64(status.st_size)
        }
        let programHeaders = end(
            offset: header.word(at: 32, 8), count: header.word(at: 56, 2), size: header.word(at: 54, 2))
        let sectionHeaders = end(
            offset: header.word(at: 40, 8), count: header.word(at: 60, 2), size: header.word(at: 58, 2))
        guard let programHeaders, let sectionHeaders, max(programHeaders, sectionHeaders) <= size else {
            let needed =
                programHeaders.flatMap { p in sectionHeaders.map { max(p, $0) } }.map { "at least \($0) bytes" }
                ?? "more than the file system allows"
            throw PluginLoadError(
                file: path, kind: .incomplete,
                message:
                    "is truncated: \(size) bytes where its ELF headers need \(needed); wait for the build to finish or copy it again"
            )
        }
    }

    /// The end of a table of `count` entries of `size` bytes at `offset`, or `nil` if it overflows.
    private static func end(offset: UInt64, count: UInt64, size: UInt64) -> UInt64? {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
        let (end, overflowAgain) = offset.addingReportingOverflow(bytes)
        return overflow || overflowAgain ? nil : end
    }

    private static func readPrefix(_ path: String, count: Int) throws(PluginLoadError) -> [UInt8] {
        let fd = try ELFFile.openRegular(path).descriptor
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, count) }
        guard got >= 0 else {
            let reason = String(cString: strerror(errno))
            throw PluginLoadError(file: path, kind: .unreadable, message: "cannot be read: \(reason.lowercased())")
        }
        return Array(bytes.prefix(got))
    }

    private static func describePrefix(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "the file is empty" }
        let printable = bytes.prefix(8).allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x09 }
        if printable {
            let text = String(decoding: bytes.prefix(8), as: UTF8.self).replacingOccurrences(of: "\n", with: "\\n")
            return "it starts with text \"\(text)\""
        }
        return "it starts with bytes "
            + bytes.prefix(4).map { String($0, radix: 16, uppercase: false) }.joined(separator: " ")
    }
}

extension [UInt8] {
    /// The little-endian unsigned integer of `size` bytes at `offset`.
    fileprivate func word(at offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { value, index in value | UInt64(self[offset + index]) << (8 * index) }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
