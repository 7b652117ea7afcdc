/// A coordinator's mapping indexed for the request path: each request name's routes gathered once into an
/// entry, found through a hash of the name's bytes in an open-addressed table.
///
/// Hashing a name with the standard library's `Hasher` costs more than the rest of a lookup. Request names
/// are short ASCII strings, so the table hashes their bytes itself, a word at a time, and every name costs
/// the same few instructions, however many routes there are and however many names are in use (a list of
/// recently used names, which this replaces, missed as soon as nine were in rotation). A name that is not
/// ASCII goes to a dictionary instead, whose hashing follows `String`'s Unicode equivalence: two ASCII
/// strings are equal exactly when their bytes are.
struct RouteTable {
    /// One request name's routes.
    final class Entry {
        let request: CoordinationRequestName
        /// The request's own route, from any module.
        let factory: ManagerFactory?
        /// Routes from particular modules, which win over ``factory``; empty for most requests.
        let byModule: [Coordinated: ManagerFactory]
        /// ``factory``'s resolution when it is made from a manager type and no module has a route of its
        /// own: with ``readyName``, all the request path needs, without copying the factory. Unretained:
        /// ``factory`` holds it.
        let ready: Unmanaged<ManagerFactory.Resolved>?
        /// What ``factory`` keeps when it is cached (``ManagerFactory/init(name:cachedIn:resolve:)``) and no
        /// module has a route of its own. Unretained: ``factory`` holds it.
        let kept: Unmanaged<ManagerFactory.KeptResolution>?
        /// The name ``ready`` reports, or a kept resolution that does not name itself: the factory's.
        let readyName: String

        fileprivate init(
            _ request: CoordinationRequestName, factory: ManagerFactory?, byModule: [Coordinated: ManagerFactory]
        ) {
            self.request = request
            self.factory = factory
            self.byModule = byModule
            let ready = byModule.isEmpty ? factory?.ready : nil
            self.ready = ready.map(Unmanaged.passUnretained)
            self.readyName = ready?.name ?? factory?.name ?? ""
            self.kept = byModule.isEmpty ? factory?.kept.map(Unmanaged.passUnretained) : nil
        }

        /// The factory for the request from `module`: the module's own route, else the request's.
        @inline(__always)
        func factory(from module: Coordinated) -> ManagerFactory? {
            if !byModule.isEmpty, let factory = byModule[module] { return factory }
            return factory
        }
    }

    /// Entries of ASCII names at the index their hash picks, or the next free one; a power of two long, at
    /// most half full. Unretained: ``entries`` holds them, and looking one up costs no reference counting.
    private let slots: [Unmanaged<Entry>?]
    /// Every entry of ``slots``.
    private let entries: [Entry]
    /// Entries of the other names.
    private let others: [CoordinationRequestName: Entry]

    init(_ mapping: RequestCoordinatorMappingDictionary) {
        var routes: [CoordinationRequestName: (ManagerFactory?, [Coordinated: ManagerFactory])] = [:]
        for (route, factory) in mapping {
            if let module = route.module {
                routes[route.request, default: (nil, [:])].1[module] = factory
            } else {
                routes[route.request, default: (nil, [:])].0 = factory
            }
        }
        let entries = routes.map { name, routes in (name, Entry(name, factory: routes.0, byModule: routes.1)) }
        var capacity = 8
        while capacity < entries.count * 2 { capacity *= 2 }
        var slots = [Unmanaged<Entry>?](repeating: nil, count: capacity)
        var others: [CoordinationRequestName: Entry] = [:]
        for (name, entry) in entries {
            guard let hash = Self.hash(name.rawValue) else {
                others[name] = entry
                continue
            }
            var index = hash & (capacity - 1)
            while slots[index] != nil { index = (index + 1) & (capacity - 1) }
            slots[index] = Unmanaged.passUnretained(entry)
        }
        self.slots = slots
        self.entries = entries.map(\.1)
        self.others = others
    }

    /// The routes of `request`, if it has any, unretained: the table holds them, and a coordinator keeps a
    /// table it replaces while a request is under way (``BaseFlowCoordinator/retiredRoutes``).
    @inline(__always)
    func entry(for request: CoordinationRequestName) -> Unmanaged<Entry>? {
        guard let hash = Self.hash(request.rawValue) else {
            return others.isEmpty ? nil : others[request].map(Unmanaged.passUnretained)
        }
        let mask = slots.count - 1
        var index = hash & mask
        while let entry = slots[index] {
            if entry.withGuaranteed({ $0.request == request }) { return entry }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The factory for `request` from `module`, if any.
    func factory(for request: CoordinationRequestName, from module: Coordinated) -> ManagerFactory? {
        entry(for: request)?.withGuaranteed { $0.factory(from: module) }
    }

    /// A hash of `name`'s UTF-8 bytes, mixed a word at a time (the last one padded with zeros) after their
    /// count; `nil` when a byte is not ASCII.
    @inline(__always)
    static func hash(_ name: String) -> Int? {
        if let hash = smallASCIIHash(name) { return hash }
        return name.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            let count = bytes.count
            var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
            guard count > 0, let base = bytes.baseAddress else { return Int(truncatingIfNeeded: hash) }
            let raw = UnsafeRawPointer(base)
            var seen: UInt64 = 0
            var offset = 0
            while offset + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                seen |= word
                hash = mix(hash, word)
                offset += 8
            }
            if offset < count {
                var word: UInt64 = 0
                for index in offset..<count { word |= UInt64(base[index]) << UInt64(8 * (index - offset)) }
                seen |= word
                hash = mix(hash, word)
            }
            return seen & 0x8080_8080_8080_8080 == 0 ? Int(truncatingIfNeeded: hash) : nil
        } ?? nil
    }

    /// ``hash(_:)`` of a name short enough to be stored in the `String` itself (at most 15 ASCII bytes,
    /// most request names), read from the string's two words without copying its bytes out; `nil` for
    /// any other string.
    ///
    /// A small string's first word holds bytes 0 to 7 and its second bytes 8 to 14, little-endian and
    /// padded with zeros, under a top byte whose high nibble is `0xE` for small ASCII and whose low
    /// nibble is the count. The words are the ones ``hash(_:)`` mixes, so both ways agree: a name hashes
    /// the same however its string is stored (`RouteTableTests` checks it).
    @inline(__always)
    static func smallASCIIHash(_ name: String) -> Int? {
        let (low, high) = unsafeBitCast(name, to: (UInt64, UInt64).self)
        guard high >> 60 == 0xE else { return nil }
        let count = (high >> 56) & 0xF
        var hash = count &* 0x9E37_79B9_7F4A_7C15
        if count > 0 { hash = mix(hash, low) }
        if count > 8 { hash = mix(hash, high & 0x00FF_FFFF_FFFF_FFFF) }
        return Int(truncatingIfNeeded: hash)
    }

    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return mixed ^ (mixed >> 32)
    }
}
