import FlowKit
import Glibc
import Testing

@testable import FlowHost

/// The auth plugin in a ``DropInLab``, as the tests of moved and rebuilt libraries use it.
extension DropInLab {
    /// A lab whose manifest lists auth (`plugins.d/libAuthPlugin.so`, there), starting its session.
    static func listingAuth() throws -> DropInLab {
        let lab = try DropInLab()
        try lab.add("libAuthPlugin.so")
        try lab.writeListingAuth(startingItsSession: true)
        return lab
    }

    /// A lab whose manifest discovers `plugins.d` and lists auth at `debug/libAuthPlugin.so`, there, with a
    /// `release` directory beside it to move it to; the library's path.
    static func listingAuthInDebug() throws -> (lab: DropInLab, library: String) {
        let lab = try DropInLab(members: #""plugins": {"auth": "debug/libAuthPlugin.so"}"#)
        for directory in ["debug", "release"] { try #require(mkdir(lab.directory.path + "/" + directory, 0o755) == 0) }
        let library = try lab.directory.file(
            "debug/libAuthPlugin.so", containing: try BuildProducts.bytes(of: "libAuthPlugin.so"))
        return (lab, library)
    }

    /// The lab's host, auth's session started by a handled `auth.signIn`, and back on the screen before it.
    func hostSignedIn() throws -> Host {
        let host = try host()
        try #require(host.coordinator.requestCoordination("auth.signIn", from: .app).isHandled)
        try host.coordinator.back()
        return host
    }

    /// Another build of auth, the same plugin in other bytes, written as `name`; its path.
    func writeAnotherAuthBuild(as name: String) throws -> String {
        try write(BuildBeingWritten.anotherAuthBuild(), as: name)
    }
}

extension HostEventCollector {
    /// The next event that reloaded a plugin, when it comes.
    func nextReload() async -> HostEvent? {
        var event = await next()
        while let heard = event, !heard.isReloaded { event = await next() }
        return event
    }
}

/// A build (another of auth, ``anotherAuthBuild()``, unless given) as its linker writes it at a path: its first 16
/// bytes, a truncated ELF file, at once; more with ``write(upTo:)``, the rest at ``finish()``.
struct BuildBeingWritten {
    let bytes: [UInt8]
    let descriptor: Int32
    /// How many of the bytes are written.
    private(set) var written = 0

    /// The auth plugin with 16 bytes more: the same plugin, another build.
    static func anotherAuthBuild() throws -> [UInt8] {
        try BuildProducts.bytes(of: "libAuthPlugin.so") + [UInt8](repeating: 0, count: 16)
    }

    /// `bytes`, another build of auth unless given, as its linker begins to write it at `path`.
    init(at path: String, bytes: [UInt8]? = nil) throws {
        self.bytes = try bytes ?? Self.anotherAuthBuild()
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        try write(upTo: 16)
    }

    /// Writes the bytes up to `end`.
    mutating func write(upTo end: Int) throws {
        let part = bytes[written..<end]
        try #require(part.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == part.count)
        written = end
    }

    /// Writes the rest of the build, and closes the file.
    mutating func finish() throws {
        defer { close(descriptor) }
        try write(upTo: bytes.count)
    }
}
