import Glibc

/// The subdirectories the dynamic loader looks in below each directory of a search path, before the directory
/// itself (`LD_DEBUG=libs` shows them): `glibc-hwcaps/x86-64-v3` and the other levels this processor
/// supports, and, before glibc 2.37, the legacy ones, `tls`, the platform's name and the important hardware
/// capabilities', nested (`tls/x86_64/x86_64`, `x86_64`).
///
/// Which of them the loader uses depends on the processor and the C library, so every one of these names that
/// is there is given: a superset, each of which ``PluginDependencies`` checks as it checks the directory.
enum LoaderSubdirectories {
    /// The most entries of a `glibc-hwcaps` directory given: the C library knows a handful of levels.
    private static let hardwareLevelLimit = 64

    /// The subdirectories of `directory` that are there and that the loader may look in, and the
    /// `glibc-hwcaps` directory itself, whose entries decide which levels there are.
    static func of(_ directory: String) -> [String] {
        var found: [String] = []
        let levels = directory + "/glibc-hwcaps"
        if exists(levels) {
            found.append(levels)
            // The levels have names of their own (`x86-64-v3`): the loader looks in no hidden one.
            let names = PluginDiscovery.names(in: levels) ?? []
            found += names.prefix(hardwareLevelLimit).map { levels + "/" + $0 }
        }
        if searchesLegacySubdirectories {
            if exists(directory + "/tls") {
                found.append(directory + "/tls")
                found += legacy(below: directory + "/tls", depth: 2)
            }
            found += legacy(below: directory, depth: 2)
        }
        return found
    }

    /// The subdirectories of `base` named after the platform or a hardware capability, nested up to `depth`.
    private static func legacy(below base: String, depth: Int) -> [String] {
        guard depth > 0 else { return [] }
        var found: [String] = []
        for name in legacyNames where exists(base + "/" + name) {
            found.append(base + "/" + name)
            found += legacy(below: base + "/" + name, depth: depth - 1)
        }
        return found
    }

    /// Whether something is at `path`: a link that leads nowhere counts, since where it leads is what the
    /// check judges.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Whether this C library still looks in the legacy subdirectories, which glibc 2.37 dropped.
    static let searchesLegacySubdirectories: Bool = {
        var buffer = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return true }
        // "glibc 2.36"
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let version = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) }
        guard let version, version.count >= 2 else { return true }
        return (version[0], version[1]) < (2, 37)
    }()

    /// The platform's name (`x86_64`, `aarch64`) and, on x86-64, the other names glibc gives the platform
    /// (`haswell`, `xeon_phi`) and its important hardware capabilities (`avx512_1`).
    private static let legacyNames: [String] = {
        var system = utsname()
        guard uname(&system) == 0 else { return [] }
        let machine = withUnsafeBytes(of: system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return [machine] + (machine == "x86_64" ? ["haswell", "xeon_phi", "avx512_1"] : [])
    }()
}
