/// A coordinator's mapping indexed for the request path: each request name's routes gathered once into an
/// entry, found through a hash of the name's bytes in an open-addressed table.
///
/// Hashing a name with the standard library's `Hasher` costs more than the rest of a lookup. Request names
/// are short ASCII strings, so the table hashes their UTF-8 bytes itself, a word at a time, and every name
/// costs the same few instructions however many routes there are and however many names are in use. Names
/// share long prefixes (`catalog.item.1`, `catalog.item.2`), so the hash ends with a full finalizer that
/// makes every input bit reach every output bit, and the table indexes with the hash's top bits. A name
/// that is not ASCII goes to a dictionary instead, whose hashing follows `String`'s Unicode equivalence:
/// two ASCII strings are equal exactly when their bytes are.
///
/// A class, never changed once made: a coordinator replaces its table when its mapping changes, and the
/// request path borrows it rather than copying its storage for each lookup.
final class RouteTable {
    /// One request name's routes.
    final class Entry {
        let request: CoordinationRequestName
        /// The request's own route, from any module.
        let factory: ManagerFactory?
        /// Routes from particular modules, which win over ``factory``; empty for most requests.
        let byModule: [Coordinated: ManagerFactory]
        /// ``factory``'s resolution when it is made from a manager type and no module has a route of its
        /// own: with ``readyName``, all the request path needs, without copying the factory.
        let ready: ManagerFactory.Resolved?
        /// What ``factory`` keeps when it is cached (``ManagerFactory/init(name:cachedIn:resolve:)``) and no
        /// module has a route of its own.
        let kept: ManagerFactory.KeptResolution?
        /// The name ``ready`` reports, or a kept resolution that does not name itself: the factory's.
        let readyName: String

        fileprivate init(
            _ request: CoordinationRequestName, factory: ManagerFactory?, byModule: [Coordinated: ManagerFactory]
        ) {
            self.request = request
            self.factory = factory
            self.byModule = byModule
            let ready = byModule.isEmpty ? factory?.ready : nil
            self.ready = ready
            self.readyName = ready?.name ?? factory?.name ?? ""
            self.kept = byModule.isEmpty ? factory?.kept : nil
        }

        /// The factory for the request from `module`: the module's own route, else the request's.
        func factory(from module: Coordinated) -> ManagerFactory? {
            if !byModule.isEmpty, let factory = byModule[module] { return factory }
            return factory
        }
    }

    /// Entries of ASCII names at the index the top bits of their hash pick, or the next free one; a power of
    /// two long, at most half full.
    private let slots: [Entry?]
    /// How far ``RouteTable/hash(_:)`` is shifted right to index ``slots``: 64 minus log2 of its count.
    private let shift: UInt64
    /// Entries of the other names.
    private let others: [CoordinationRequestName: Entry]

    init(_ mapping: RequestCoordinatorMappingDictionary) {
        var routes: [CoordinationRequestName: (ManagerFactory?, [Coordinated: ManagerFactory])] = [:]
        routes.reserveCapacity(mapping.count)
        for (route, factory) in mapping {
            if let module = route.module {
                routes[route.request, default: (nil, [:])].1[module] = factory
            } else {
                routes[route.request, default: (nil, [:])].0 = factory
            }
        }
        var bits: UInt64 = 3
        while 1 << bits < routes.count * 2 { bits += 1 }
        let capacity = 1 << bits
        var slots = [Entry?](repeating: nil, count: capacity)
        var others: [CoordinationRequestName: Entry] = [:]
        for (name, routes) in routes {
            let entry = Entry(name, factory: routes.0, byModule: routes.1)
            guard let hash = name.routeHash else {
                others[name] = entry
                continue
            }
            var index = Int(truncatingIfNeeded: hash >> (64 - bits))
            while slots[index] != nil { index = (index + 1) & (capacity - 1) }
            slots[index] = entry
        }
        self.slots = slots
        self.shift = 64 - bits
        self.others = others
    }

    /// The routes of `request`, if it has any.
    func entry(for request: CoordinationRequestName) -> Entry? {
        entry(named: request.rawValue, hash: request.routeHash)
    }

    /// The routes of the request named `name`, whose ``CoordinationRequestName/routeHash`` is `hash`, if it
    /// has any. The request path looks up a request's name as its two parts, which it passes as they are:
    /// the name as a whole would be copied (its text retained) to be passed.
    ///
    /// Always inlined: called, it would return the entry retained while its caller retained the table
    /// across the call; inlined, the request path reads the table in place, an atomic retain and release
    /// fewer per request.
    @inline(__always)
    func entry(named name: String, hash: UInt64?) -> Entry? {
        guard let hash else {
            return others.isEmpty ? nil : others[CoordinationRequestName(rawValue: name)]
        }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: hash >> shift)
        while let entry = slots[index] {
            // Names in neighbouring slots almost never share the whole hash: comparing it first spares
            // comparing their bytes.
            if entry.request.routeHash == hash, entry.request.rawValue == name { return entry }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The factory for `request` from `module`, if any.
    func factory(for request: CoordinationRequestName, from module: Coordinated) -> ManagerFactory? {
        entry(for: request)?.factory(from: module)
    }

    /// How many slots a lookup of each name in the table visits, the name's own included: 1 for a name in
    /// the slot its hash picks. For tests, which check that names sharing a prefix spread out.
    var probeCounts: [Int] {
        var counts: [Int] = []
        for entry in slots {
            guard let entry, let hash = entry.request.routeHash else { continue }
            var index = Int(truncatingIfNeeded: hash >> shift)
            var probes = 1
            while slots[index] !== entry {
                index = (index + 1) & (slots.count - 1)
                probes += 1
            }
            counts.append(probes)
        }
        return counts
    }

    /// A hash of `name`'s UTF-8 bytes, taken a word at a time (the last one padded with zeros) after their
    /// count, then finalized so that every bit of every byte moves every bit of the result; `nil` when a
    /// byte is not ASCII.
    ///
    /// The bytes are read through `withContiguousStorageIfAvailable`, which hands even a name stored inside
    /// its `String` over as a buffer; a string without contiguous UTF-8 (none on Linux) is treated as not
    /// ASCII, and found through the dictionary.
    static func hash(_ name: String) -> UInt64? {
        name.utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
            let count = bytes.count
            var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
            var seen: UInt64 = 0
            if count > 0, let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                var offset = 0
                while offset + 8 <= count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    seen |= word
                    hash = combine(hash, word)
                    offset += 8
                }
                if offset < count {
                    var word: UInt64 = 0
                    for index in offset..<count { word |= UInt64(base[index]) << UInt64(8 * (index - offset)) }
                    seen |= word
                    hash = combine(hash, word)
                }
            }
            return seen & 0x8080_8080_8080_8080 == 0 ? finalize(hash) : nil
        } ?? nil
    }

    /// Folds `word` into `hash`: a multiply spreads each bit of the word upwards, a rotation brings the high
    /// bits down for the next word.
    private static func combine(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
        return (mixed << 31) | (mixed >> 33)
    }

    /// MurmurHash3's 64-bit finalizer: each input bit flips each output bit with a probability close to a
    /// half, so the top bits that index the table depend on every byte, the last ones included.
    private static func finalize(_ hash: UInt64) -> UInt64 {
        var hash = hash
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return hash
    }
}
