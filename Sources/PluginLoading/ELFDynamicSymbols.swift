import FlowKit
import Glibc
import HostSupport

/// Reads a shared object's dynamic section and dynamic symbol table from the file, the way the dynamic
/// loader will, so that a library is refused before `dlopen` runs any of its constructors: one without the
/// FlowKit entry symbol (a foreign library such as libpam), one whose entry symbol is data, and one whose
/// dynamic section points outside the file's loadable segments (which would crash the dynamic loader).
///
/// Every offset, address and size read from the file is checked against the file and its segments first.
/// Expects a file ``ELFCheck`` accepted: a 64-bit little-endian ELF shared object for this machine.
enum ELFDynamicSymbols {
    /// Throws unless the library at `path` defines ``PluginEntry/symbol`` as a function, with a dynamic
    /// section the dynamic loader can follow.
    ///
    /// - Parameter contents: The file's bytes, when they are at hand: they are checked rather than read again.
    ///
    /// - Returns: The libraries it needs and where the dynamic loader looks for them.
    @discardableResult
    static func check(_ path: String, contents: [UInt8]? = nil, symbol: String = PluginEntry.symbol)
        throws(PluginLoadError) -> PluginDependencies
    {
        let file: ELFFile
        if let contents { file = ELFFile(path, contents: contents) } else { file = try ELFFile(path) }
        defer { file.close() }
        let dynamic = try Dynamic(file)
        try checkEntry(in: dynamic, symbol: symbol)
        return try dynamic.dependencies()
    }

    /// The libraries the file at `path` needs and where the dynamic loader looks for them.
    static func dependencies(of path: String) throws(PluginLoadError) -> PluginDependencies {
        let file = try ELFFile(path)
        defer { file.close() }
        return try Dynamic(file).dependencies()
    }

    /// Throws unless the file of `dynamic` defines `symbol` as a function.
    static func checkEntry(in dynamic: Dynamic, symbol: String) throws(PluginLoadError) {
        let file = dynamic.file
        guard let found = try dynamic.lookup(symbol) else {
            if dynamic.hasInterpreter {
                throw PluginLoadError(
                    file: file.path, kind: .notSharedObject,
                    message:
                        "is a program (it names an interpreter), not a plugin library; build the plugin as a `.library(type: .dynamic)` product"
                )
            }
            // FlowKit's own library, given for the plugin that links it: no entry point to add there.
            if try dynamic.isFlowKit() {
                throw PluginLoadError(
                    file: file.path, kind: .missingEntry,
                    message:
                        "has no entry point '\(symbol)': it is FlowKit itself, the library plugins link, not a plugin; give the path of a plugin's lib<Name>.so"
                )
            }
            // A library that is no FlowKit plugin at all: the entry point alone would not compile in it.
            if try !dynamic.linksFlowKit() {
                throw PluginLoadError(
                    file: file.path, kind: .missingEntry,
                    message:
                        "has no entry point '\(symbol)': it is not a FlowKit plugin, it does not link libFlowKit.so; add FlowKit as a dependency (`.product(name: \"FlowKit\", package: \"FlowKit\")`, see docs/authoring.md), then `@c(\(symbol)) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }`, where `plugin` is its PluginDescription"
                )
            }
            throw PluginLoadError(
                file: file.path, kind: .missingEntry,
                message:
                    "has no entry point '\(symbol)'; add `@c(\(symbol)) public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }` to the plugin, where `plugin` is its PluginDescription"
            )
        }
        // STT_FUNC or STT_GNU_IFUNC: code. Anything else cannot be called.
        guard found.type == 2 || found.type == 10 else {
            let what = found.type == 1 ? "data (an object)" : found.type == 6 ? "thread-local data" : "not a function"
            throw PluginLoadError(
                file: file.path, kind: .badEntry,
                message:
                    "its entry point '\(symbol)' is \(what), not a function; export it with `@c(\(symbol)) public func`"
            )
        }
    }

    /// The parts of the dynamic section the lookup needs, with addresses already checked.
    struct Dynamic {
        let file: ELFFile
        /// The loadable segments: virtual address, size in memory, file offset, size in the file.
        let segments: [(address: UInt64, memorySize: UInt64, offset: UInt64, fileSize: UInt64)]
        let strings: (offset: UInt64, size: UInt64)
        let symbols: UInt64
        let gnuHash: UInt64?
        let sysvHash: UInt64?
        /// Whether it has a `PT_INTERP` segment: a program (or a library such as libc that is also one).
        let hasInterpreter: Bool
        /// Where in the string table the names of the libraries it needs (`DT_NEEDED`, and the filters'
        /// `DT_FILTER` and `DT_AUXILIARY`) are, in order.
        let needed: [UInt64]
        /// Where its search path is in the string table: `DT_RUNPATH`, or `DT_RPATH` when it has none, as the
        /// dynamic loader reads them.
        let searchPath: UInt64?
        /// Whether ``searchPath`` is `DT_RUNPATH`, which the loader looks in after `LD_LIBRARY_PATH`, rather than
        /// `DT_RPATH`, which it looks in before.
        let searchPathIsRunPath: Bool

        init(_ file: ELFFile) throws(PluginLoadError) {
            self.file = file
            let header = try file.bytes(at: 0, count: 64)
            let tableOffset = header.word(at: 32, 8)
            let entrySize = header.word(at: 54, 2)
            let count = header.word(at: 56, 2)
            guard entrySize >= 56 || count == 0 else {
                throw file.corrupt("program header entries of \(entrySize) bytes, fewer than 56")
            }
            var segments: [(address: UInt64, memorySize: UInt64, offset: UInt64, fileSize: UInt64)] = []
            var dynamicSegment: (offset: UInt64, size: UInt64)?
            var hasInterpreter = false
            for index in 0..<count {
                let entry = try file.bytes(at: tableOffset &+ index &* entrySize, count: 56)
                let type = entry.word(at: 0, 4)
                let offset = entry.word(at: 8, 8)
                let fileSize = entry.word(at: 32, 8)
                guard file.contains(offset: offset, count: fileSize) else {
                    throw file.corrupt(
                        "segment \(index) lies outside the file (offset \(offset), \(fileSize) bytes, file \(file.size) bytes)"
                    )
                }
                if type == 1 { segments.append((entry.word(at: 16, 8), entry.word(at: 40, 8), offset, fileSize)) }
                if type == 2 { dynamicSegment = (offset, fileSize) }
                if type == 3 { hasInterpreter = true }
            }
            self.segments = segments
            self.hasInterpreter = hasInterpreter
            guard let dynamicSegment else {
                throw PluginLoadError(
                    file: file.path, kind: .missingEntry,
                    message:
                        "has no dynamic section, so no entry point '\(PluginEntry.symbol)'; build the plugin as a `.library(type: .dynamic)` product"
                )
            }
            var values: [UInt64: UInt64] = [:]
            var needed: [UInt64] = []
            // The loader takes the last of each, where `values` keeps the first.
            var (runPath, rPath): (UInt64?, UInt64?) = (nil, nil)
            let entries = try file.bytes(at: dynamicSegment.offset, count: Int(min(dynamicSegment.size, 1 << 20)))
            var position = 0
            while position + 16 <= entries.count {
                let tag = entries.word(at: position, 8)
                let value = entries.word(at: position + 8, 8)
                position += 16
                if tag == 0 { break }
                // DT_NEEDED, and DT_FILTER and DT_AUXILIARY, whose libraries the loader looks for as it does needed ones.
                if tag == 1 || tag == 0x7fff_ffff || tag == 0x7fff_fffd {
                    needed.append(value)
                } else if tag == 29 {
                    runPath = value
                } else if tag == 15 {
                    rPath = value
                } else if values[tag] == nil {
                    values[tag] = value
                }
            }
            // Every tag whose value is an address the loader follows (or, for DT_RELA, reads from).
            let addressTags: [(UInt64, String)] = [
                (4, "DT_HASH"), (5, "DT_STRTAB"), (6, "DT_SYMTAB"), (7, "DT_RELA"), (12, "DT_INIT"), (13, "DT_FINI"),
                (23, "DT_JMPREL"), (25, "DT_INIT_ARRAY"), (26, "DT_FINI_ARRAY"), (0x6fff_fef5, "DT_GNU_HASH"),
                (0x6fff_fff0, "DT_VERSYM"), (0x6fff_fffc, "DT_VERDEF"), (0x6fff_fffe, "DT_VERNEED"),
            ]
            func offset(of address: UInt64) -> UInt64? {
                for segment in segments where address >= segment.address && address - segment.address < segment.fileSize
                {
                    return segment.offset + (address - segment.address)
                }
                return nil
            }
            var offsets: [UInt64: UInt64] = [:]
            for (tag, name) in addressTags {
                guard let address = values[tag] else { continue }
                guard let fileOffset = offset(of: address) else {
                    throw file.corrupt(
                        "\(name) is 0x\(String(address, radix: 16)), outside every loadable segment of the file")
                }
                offsets[tag] = fileOffset
            }
            guard let strings = offsets[5], let symbols = offsets[6] else {
                throw file.corrupt("it has no \(offsets[5] == nil ? "DT_STRTAB" : "DT_SYMTAB")")
            }
            let stringSize = values[10] ?? 0
            guard file.contains(offset: strings, count: stringSize) else {
                throw file.corrupt("DT_STRSZ \(stringSize) runs past the end of the file")
            }
            if let bad = needed.first(where: { $0 >= stringSize }) {
                throw file.corrupt(
                    "a needed library's name (DT_NEEDED, DT_FILTER or DT_AUXILIARY) at \(bad) lies outside the string table of \(stringSize) bytes"
                )
            }
            if let entrySize = values[11], entrySize != 24 {
                throw file.corrupt("DT_SYMENT is \(entrySize), not 24")
            }
            if let bad = [runPath, rPath].compactMap({ $0 }).first(where: { $0 >= stringSize }) {
                throw file.corrupt("a search path (DT_RUNPATH or DT_RPATH) at \(bad) lies outside the string table")
            }
            self.needed = needed
            self.searchPath = runPath ?? rPath
            self.searchPathIsRunPath = runPath != nil
            self.strings = (strings, stringSize)
            self.symbols = symbols
            self.gnuHash = offsets[0x6fff_fef5]
            self.sysvHash = offsets[4]
        }

        /// The libraries the file needs and its search path, as the dynamic loader reads them.
        func dependencies() throws(PluginLoadError) -> PluginDependencies {
            var dependencies = PluginDependencies(needed: [], searchPath: [])
            // The loader reads bytes; a name that is not UTF-8 would be checked as another (U+FFFD for each bad byte).
            func text(_ bytes: [UInt8], _ named: (String) -> PluginDependencies.NotUTF8) -> String {
                if let string = String(validating: bytes, as: UTF8.self) { return string }
                if dependencies.notUTF8 == nil { dependencies.notUTF8 = named(PrintableText.escaping(bytes)) }
                return String(decoding: bytes, as: UTF8.self)
            }
            for offset in self.needed { dependencies.needed.append(text(try string(at: offset), { .needed($0) })) }
            if let searchPath {
                dependencies.searchPath = text(try string(at: searchPath), { .searchPath($0) })
                    .split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                dependencies.isRunPath = searchPathIsRunPath
            }
            return dependencies
        }

        /// The bytes of the string at `offset` in the string table, up to its NUL (at most 4,096 bytes), read 256
        /// bytes at a time: most are library names.
        private func string(at offset: UInt64) throws(PluginLoadError) -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < 4_096 {
                let start = offset + UInt64(bytes.count)
                guard start < strings.size else { break }
                let chunk = try file.bytes(at: strings.offset + start, count: Int(min(strings.size - start, 256)))
                if let end = chunk.firstIndex(of: 0) { return bytes + chunk[..<end] }
                bytes += chunk
            }
            throw file.corrupt("a name at \(offset) in the string table does not end within the table or 4,096 bytes")
        }

        /// The defined dynamic symbol `name`'s type, through the hash table the loader uses.
        func lookup(_ name: String) throws(PluginLoadError) -> (type: UInt8, section: UInt16)? {
            let wanted = Array(name.utf8)
            if let gnuHash { return try lookupGNU(wanted, table: gnuHash) }
            if let sysvHash { return try lookupSysV(wanted, table: sysvHash) }
            throw file.corrupt("it has neither DT_GNU_HASH nor DT_HASH, so the loader cannot find a symbol in it")
        }

        private func lookupGNU(_ name: [UInt8], table: UInt64) throws(PluginLoadError) -> (
            type: UInt8, section: UInt16
        )? {
            let header = try file.bytes(at: table, count: 16)
            let bucketCount = header.word(at: 0, 4)
            let symbolBase = header.word(at: 4, 4)
            let bloomSize = header.word(at: 8, 4)
            guard bucketCount > 0 else { return nil }
            let hash = name.reduce(UInt32(5381)) { $0 &* 33 &+ UInt32($1) }
            let buckets = table &+ 16 &+ bloomSize &* 8
            let chains = buckets &+ bucketCount &* 4
            var index = try file.bytes(at: buckets &+ (UInt64(hash) % bucketCount) &* 4, count: 4).word(at: 0, 4)
            guard index != 0 else { return nil }
            guard index >= symbolBase else { throw file.corrupt("a DT_GNU_HASH bucket points below its first symbol") }
            // Each chain ends with an entry whose low bit is set; bound the walk by the file's size anyway.
            while index - symbolBase < file.size / 4 {
                let chain = try file.bytes(at: chains &+ (index - symbolBase) &* 4, count: 4).word(at: 0, 4)
                if chain | 1 == UInt64(hash | 1), let found = try symbol(index, named: name) { return found }
                if chain & 1 == 1 { return nil }
                index += 1
            }
            throw file.corrupt("a DT_GNU_HASH chain does not end")
        }

        private func lookupSysV(_ name: [UInt8], table: UInt64) throws(PluginLoadError) -> (
            type: UInt8, section: UInt16
        )? {
            let header = try file.bytes(at: table, count: 8)
            let bucketCount = header.word(at: 0, 4)
            let chainCount = header.word(at: 4, 4)
            guard bucketCount > 0 else { return nil }
            let hash = name.reduce(UInt32(0)) { value, byte in
                let shifted = (value << 4) &+ UInt32(byte)
                let high = shifted & 0xF000_0000
                return (shifted ^ (high >> 24)) & ~high
            }
            var index = try file.bytes(at: table &+ 8 &+ (UInt64(hash) % bucketCount) &* 4, count: 4).word(at: 0, 4)
            // A chain visits each symbol once at most: bound the walk by the symbols the file can hold (24 bytes
            // each), not only by the chain count the file states, which a forged one sets to 2^32 - 1 with a chain
            // that loops.
            let steps = min(chainCount, file.size / 24)
            var step: UInt64 = 0
            while index != 0 {
                guard index < chainCount, step < steps else { throw file.corrupt("a DT_HASH chain does not end") }
                if let found = try symbol(index, named: name) { return found }
                index = try file.bytes(at: table &+ 8 &+ (bucketCount &+ index) &* 4, count: 4).word(at: 0, 4)
                step += 1
            }
            return nil
        }

        /// Symbol `index`'s type and section if it is named `name` and defined.
        private func symbol(_ index: UInt64, named name: [UInt8]) throws(PluginLoadError) -> (
            type: UInt8, section: UInt16
        )? {
            let entry = try file.bytes(at: symbols &+ index &* 24, count: 24)
            let nameOffset = entry.word(at: 0, 4)
            guard nameOffset < strings.size, strings.size - nameOffset > UInt64(name.count) else { return nil }
            let stored = try file.bytes(at: strings.offset + nameOffset, count: name.count + 1)
            guard stored.dropLast().elementsEqual(name), stored.last == 0 else { return nil }
            let section = UInt16(entry.word(at: 6, 2))
            guard section != 0 else { return nil }  // SHN_UNDEF: a reference, not a definition
            return (entry[4] & 0xF, section)
        }
    }
}

/// An open ELF file read with bounds-checked `pread`s, or its bytes in memory.
struct ELFFile {
    package let path: String
    let descriptor: Int32
    let size: UInt64
    private var contents: [UInt8]?

    /// The file at `path` whose bytes are `contents`: nothing is read.
    init(_ path: String, contents: [UInt8]) {
        self.path = path
        self.descriptor = -1
        self.size = UInt64(contents.count)
        self.contents = contents
    }

    init(_ path: String) throws(PluginLoadError) {
        self.path = path
        (descriptor, size) = try Self.openRegular(path)
    }

    /// A descriptor for reading the regular file at `path`, and the file's size.
    ///
    /// Opened without waiting: the file was checked to be a regular one before, but a FIFO put in its place
    /// since (where others may write, with `--allow-insecure-plugins`) would block the open until a writer
    /// came; it is refused instead, as a device is.
    static func openRegular(_ path: String) throws(PluginLoadError) -> (descriptor: Int32, size: UInt64) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PluginLoadError(
                file: path, kind: .unreadable,
                message: "cannot be read: \(String(cString: strerror(errno)).lowercased())")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            throw PluginLoadError(
                file: path, kind: .notRegularFile, message: "cannot be read: it is no longer a regular file")
        }
        return (descriptor, UInt64(max(status.st_size, 0)))
    }

    package func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Whether `count` bytes at `offset` lie inside the file.
    func contains(offset: UInt64, count: UInt64) -> Bool {
        offset <= size && count <= size - offset
    }

    /// `count` bytes at `offset`.
    ///
    /// - Throws: ``PluginLoadError/Kind/corruptELF`` when they are not all inside the file.
    func bytes(at offset: UInt64, count: Int) throws(PluginLoadError) -> [UInt8] {
        guard contains(offset: offset, count: UInt64(count)) else {
            throw corrupt("it points to \(count) bytes at offset \(offset), past the end of the file (\(size) bytes)")
        }
        if let contents { return Array(contents[Int(offset)..<(Int(offset) + count)]) }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes[done...].withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, $0.count, off_t(offset) + off_t(done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw PluginLoadError(file: path, kind: .unreadable, message: "cannot be read: short read at \(offset)")
            }
            done += got
        }
        return bytes
    }

    /// The refusal of a file whose dynamic linking information is broken.
    func corrupt(_ detail: String) -> PluginLoadError {
        PluginLoadError(
            file: path, kind: .corruptELF,
            message: "its dynamic section is corrupt: \(detail); rebuild the plugin or copy it again")
    }
}

extension [UInt8] {
    /// The little-endian unsigned integer of `size` bytes at `offset`.
    fileprivate func word(at offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { value, index in value | UInt64(self[offset + index]) << (8 * index) }
    }
}
