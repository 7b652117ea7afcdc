import Glibc
import Testing

@testable import PluginLoading

/// A refusal names who, besides root and the user, could replace the plugin: the owner by their account's
/// name, the group by its name, or any user, in its first clause, and its last says what they could do (`its
/// owner can replace the plugin's code`); not "whoever can write there". Making another user's or
/// group's file takes root, as CI is.
@Suite(.enabled(if: geteuid() == 0, "chown to another user needs root"))
struct PluginPermissionsWritersTests {
    @Test func aLibraryOfAnotherAccountNamesItsOwner() throws {
        let lab = try PluginLab()
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(chown(lab.library, nobody, 0) == 0)

        let error = try #require(throws: PluginLoadError.self) { try PluginPermissions.check(lab.library) }
        #expect(
            error.message
                == "file \(lab.library) (mode 0755) is owned by 'nobody' (uid \(nobody)), neither root nor uid 0; its owner can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
    }

    /// Another account's library that others can write too: any user, not only its owner, could replace it,
    /// and the refusal says so rather than name the owner alone.
    @Test func aLibraryOfAnotherAccountThatAnyUserCanWriteSaysAnyUserCan() throws {
        let lab = try PluginLab()
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(chown(lab.library, nobody, 0) == 0 && chmod(lab.library, 0o777) == 0)

        let error = try #require(throws: PluginLoadError.self) { try PluginPermissions.check(lab.library) }
        #expect(
            error.message
                == "file \(lab.library) (mode 0777) is owned by 'nobody' (uid \(nobody)), neither root nor uid 0; any user can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
    }

    /// Another account's library its group can write: the group's members could replace it as well.
    @Test func aLibraryOfAnotherAccountThatItsGroupCanWriteNamesTheGroupToo() throws {
        let lab = try PluginLab()
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        let staff = try #require(getgrnam("staff")).pointee.gr_gid
        try #require(chown(lab.library, nobody, staff) == 0 && chmod(lab.library, 0o775) == 0)

        let error = try #require(throws: PluginLoadError.self) { try PluginPermissions.check(lab.library) }
        #expect(
            error.message
                == "file \(lab.library) (mode 0775) is owned by 'nobody' (uid \(nobody)), neither root nor uid 0; its owner and the members of group 'staff' (gid \(staff)) can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
    }

    @Test func aDirectoryItsGroupCanWriteNamesTheGroup() throws {
        let lab = try PluginLab()
        let staff = try #require(getgrnam("staff")).pointee.gr_gid
        try #require(chown(lab.directory, 0, staff) == 0 && chmod(lab.directory, 0o775) == 0)

        let validate = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first
                == "\(lab.library): directory \(lab.directory) (mode 0775) is writable by group 'staff' (gid \(staff)) and owned by 'root' (uid 0); the group's members can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
    }

    /// A discovered directory another account owns: who could add a plugin to it.
    @Test func aDiscoveredDirectoryOfAnotherAccountNamesWhoCouldAddAPlugin() throws {
        let lab = try PluginLab()
        let manifest = try lab.temporary.file(
            "discover.json", containing: #"{"manifestVersion": 1, "discover": ["plugins"]}"#)
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        try #require(chown(lab.directory, nobody, 0) == 0)

        let validate = try Subprocess.flowhost(["validate", manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first
                == "\(lab.directory): discovered directory refused: directory \(lab.directory) (mode 0755) is owned by 'nobody' (uid \(nobody)), neither root nor uid 0; its owner can add a plugin; pass --allow-insecure-plugins to load from it anyway"
        )
    }
}
