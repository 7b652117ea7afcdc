import Glibc
import HostSupport
import Testing

@testable import PluginLoading

/// A library that others could replace is refused unless `--allow-insecure-plugins`.
struct PluginPermissionsTests {
    @Test func aLibraryInAWorldWritableDirectoryIsRefusedAndAcceptedWithTheFlag() throws {
        let lab = try PluginLab()
        try #require(chmod(lab.directory, 0o777) == 0)

        let refused = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(refused.status == 65)
        #expect(
            refused.errorLines.first
                == "\(lab.library): directory \(lab.directory) (mode 0777) is writable by others and owned by \(PathTrust.userName(geteuid())); any user can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
        #expect(try Subprocess.flowhost(["validate", lab.manifest, "--allow-insecure-plugins"]).status == 0)
        #expect(try Subprocess.flowhost(["inspect", lab.library]).status == 65)
        #expect(try Subprocess.flowhost(["inspect", lab.library, "--allow-insecure-plugins"]).status == 0)
        let list = try Subprocess.flowhost(["list", lab.manifest, "--eager"])
        #expect(list.standardOutput.contains("failed"))
    }

    @Test func aStickyWorldWritableDirectoryIsAcceptedButNotAWorldWritableFile() throws {
        let lab = try PluginLab()
        try #require(chmod(lab.directory, 0o1777) == 0)
        #expect(try Subprocess.flowhost(["validate", lab.manifest]).status == 0)

        try #require(chmod(lab.library, 0o666) == 0)
        let run = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(run.status == 65)
        #expect(run.errorLines.first?.contains("file \(lab.library) (mode 0666) is writable by others") == true)
    }

    /// A directory another user renames away and back between flowhost's check and its read was trusted while
    /// it was away; what cannot be examined is refused.
    @Test func aPathThatCannotBeExaminedIsRefused() throws {
        let lab = try PluginLab()
        let away = lab.directory + "/away/libWelcomePlugin.so"
        let error = try #require(throws: PluginLoadError.self) { try PluginPermissions.check(away) }
        #expect(error.kind == .insecure)
        // Nobody to name: the refusal says why, and no "whoever can write there".
        #expect(
            error.message
                == "\(lab.directory)/away cannot be examined (No such file or directory), so whether others can change it is unknown; pass --allow-insecure-plugins to load it anyway"
        )
    }

    @Test func aGroupWritableFileIsAcceptedWhenItsOwnerIsTrusted() throws {
        let lab = try PluginLab()
        try #require(chmod(lab.library, 0o664) == 0)
        #expect(throws: Never.self) { try PluginPermissions.check(lab.library) }
        // The same file seen by someone else: its owner is neither root nor them.
        if geteuid() != 0 {
            #expect(throws: PluginLoadError.self) { try PluginPermissions.check(lab.library, user: geteuid() + 1) }
        }
    }
}
