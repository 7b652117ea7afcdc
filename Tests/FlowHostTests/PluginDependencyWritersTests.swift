import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// A refusal of a place the loader looks in for what a plugin needs names who could choose code the plugin
/// runs, as a refusal of the plugin's own file does (``PluginPermissionsWritersTests``): the owner by their
/// account's name, the group by its name; and a place that could not be examined names nobody. Checked on
/// the plugin's dependencies as given, without a library to probe.
@MainActor
struct PluginDependencyWritersTests {
    /// Checks a plugin that needs only what is loaded already and looks in `directory`; the refusal's message.
    private func refusal(searching directory: String) throws -> String {
        let dependencies = PluginDependencies(needed: ["libc.so.6"], searchPath: [directory])
        let error = try #require(throws: PluginLoadError.self) {
            try PluginDependencies.check(
                "libPlugin.so", dependencies, libraryPath: PluginDependencies.LibraryPath(nil))
        }
        #expect(error.kind == .insecure && error.file == "libPlugin.so")
        return error.message
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root"))
    func aSearchPathDirectoryOfAnotherAccountNamesItsOwner() throws {
        let directory = try TemporaryDirectory()
        let theirs = directory.path + "/lib"
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(mkdir(theirs, 0o755) == 0 && chown(theirs, nobody, 0) == 0)

        #expect(
            try refusal(searching: theirs)
                == "the loader looks for libraries in \(theirs) (the plugin's search path), and directory \(theirs) (mode 0755) is owned by 'nobody' (uid \(nobody)), neither root nor uid 0; its owner can choose code the plugin runs; pass --allow-insecure-plugins to load it anyway"
        )
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another group needs root"))
    func aSearchPathDirectoryItsGroupCanWriteNamesTheGroup() throws {
        let directory = try TemporaryDirectory()
        let shared = directory.path + "/lib"
        let staff = try #require(getgrnam("staff")).pointee.gr_gid
        try #require(mkdir(shared, 0o755) == 0 && chown(shared, 0, staff) == 0 && chmod(shared, 0o775) == 0)

        #expect(
            try refusal(searching: shared)
                == "the loader looks for libraries in \(shared) (the plugin's search path), and directory \(shared) (mode 0775) is writable by group 'staff' (gid \(staff)) and owned by 'root' (uid 0); the group's members can choose code the plugin runs; pass --allow-insecure-plugins to load it anyway"
        )
    }

    /// A link that leads to itself cannot be followed to a directory to judge: nobody is named.
    @Test func aSearchPathEntryThatCannotBeExaminedNamesNobody() throws {
        let directory = try TemporaryDirectory()
        let loop = directory.path + "/loop"
        try #require(symlink(loop, loop) == 0)

        #expect(
            try refusal(searching: loop)
                == "the loader looks for libraries in \(loop) (the plugin's search path), and \(loop) cannot be examined (Too many levels of symbolic links), so whether others can change it is unknown; pass --allow-insecure-plugins to load it anyway"
        )
    }
}
