import FlowKit
import Glibc
import Testing

@testable import PluginLoading

/// Owners, not only modes: a library, a directory on its path, a link in a shared directory or a discovered
/// directory that belongs to another user (uid 4321, which no account uses) is refused with one line, and a
/// manifest or script others could change is warned about. Making another user's file takes root, as CI is.
@Suite(.enabled(if: geteuid() == 0, "chown to another user needs root"))
struct PluginOwnershipTests {
    static let stranger: uid_t = 4321

    @Test func aLibraryOwnedByAnotherUserIsRefusedByEveryCommandUnlessAllowed() throws {
        let lab = try PluginLab()
        try #require(chown(lab.library, Self.stranger, 0) == 0)

        let validate = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first
                == "\(lab.library): file \(lab.library) (mode 0755) is owned by uid 4321, neither root nor uid 0; its owner can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
        #expect(try Subprocess.flowhost(["inspect", lab.library]).status == 65)
        let run = try Subprocess.flowhost(["run", lab.manifest, "--script", lab.script])
        #expect(run.status == 1)
        #expect(run.standardError.contains("is owned by uid 4321"))
        #expect(try Subprocess.flowhost(["validate", lab.manifest, "--allow-insecure-plugins"]).status == 0)
    }

    @Test func aDirectoryOnThePathOwnedByAnotherUserIsRefused() throws {
        let lab = try PluginLab()
        try #require(chown(lab.directory, Self.stranger, 0) == 0)

        let validate = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first?.hasPrefix(
                "\(lab.library): directory \(lab.directory) (mode 0755) is owned by uid 4321, neither root nor uid 0;")
                == true)
    }

    @Test func aLinkAnotherUserPlantedInASharedDirectoryIsRefusedThoughItLeadsToATrustedLibrary() throws {
        let lab = try PluginLab()
        let shared = lab.temporary.path + "/shared"
        try #require(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        let link = shared + "/libWelcomePlugin.so"
        try #require(symlink(lab.library, link) == 0)
        try #require(lchown(link, Self.stranger, 0) == 0)
        let manifest = try lab.temporary.file("linked.json", containing: PluginLab.manifestText(library: link))

        let validate = try Subprocess.flowhost(["validate", manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first?.hasPrefix(
                "\(link): symbolic link \(link) is owned by uid 4321, neither root nor uid 0, in directory \(shared), which others can write (mode 1777);"
            ) == true)

        // The same link made by the running user is theirs to trust.
        try #require(lchown(link, 0, 0) == 0)
        #expect(try Subprocess.flowhost(["validate", manifest]).status == 0)
    }

    @Test func aDiscoveredDirectoryOthersCanAddToIsRefusedEvenWithTheStickyBit() throws {
        let lab = try PluginLab()
        let manifest = try lab.temporary.file(
            "discover.json", containing: #"{"manifestVersion": 1, "discover": ["plugins"]}"#)
        #expect(try Subprocess.flowhost(["validate", manifest]).status == 0)
        try #require(chmod(lab.directory, 0o1777) == 0)

        let validate = try Subprocess.flowhost(["validate", manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first
                == "\(lab.directory): discovered directory refused: directory \(lab.directory) (mode 1777) is writable by others and owned by 'root' (uid 0); any user can add a plugin; pass --allow-insecure-plugins to load from it anyway"
        )
        #expect(try Subprocess.flowhost(["validate", manifest, "--allow-insecure-plugins"]).status == 0)
    }

    /// An ACL entry `user:4321:rwx` leaves the mode at 0775 (its group bits are the ACL's mask) and lets uid
    /// 4321 swap the library between the check and the load.
    @Test func aDirectoryWhoseAccessControlListLetsAnotherUserWriteIsRefused() throws {
        let lab = try PluginLab()
        try Self.setAccessControlList(on: lab.directory, mask: 7)

        let validate = try Subprocess.flowhost(["validate", lab.manifest])

        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first
                == "\(lab.library): directory \(lab.directory), owned by 'root' (uid 0), lets uid 4321 write it through its access control list (setfacl); that user can replace the plugin's code; pass --allow-insecure-plugins to load it anyway"
        )
    }

    /// The same entry under a mask of `r-x` (`setfacl -m u:4321:rwx,m::rx`) lets uid 4321 read only, and the
    /// mode's group bits say so (0755): the ACL, which the check then does not read, cannot refuse the library.
    @Test func aDirectoryWhoseAccessControlListMasksTheOtherUsersWriteIsAccepted() throws {
        let lab = try PluginLab()
        try Self.setAccessControlList(on: lab.directory, mask: 5)
        var status = stat()
        try #require(stat(lab.directory, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o755)

        #expect(throws: Never.self) { try PluginPermissions.check(lab.library) }
        #expect(try Subprocess.flowhost(["validate", lab.manifest]).status == 0)
    }

    /// Gives `path` the ACL `user::rwx user:4321:rwx group::r-x mask::MASK other::r-x`, as setfacl writes it:
    /// a version, then (tag, permissions, id) entries, little-endian.
    private static func setAccessControlList(on path: String, mask: Int) throws {
        let entries: [(tag: Int, permissions: Int, id: UInt32)] = [
            (0x01, 7, .max), (0x02, 7, stranger), (0x04, 5, .max), (0x10, mask, .max), (0x20, 5, .max),
        ]
        var acl: [UInt8] = [2, 0, 0, 0]
        for entry in entries {
            acl += [UInt8(entry.tag), 0, UInt8(entry.permissions), 0]
            acl += withUnsafeBytes(of: entry.id.littleEndian, Array.init)
        }
        let hex = acl.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        let set = try Subprocess.run(
            "/usr/bin/python3",
            [
                "-c", "import os, sys; os.setxattr(sys.argv[1], 'system.posix_acl_access', bytes.fromhex(sys.argv[2]))",
                path, hex.joined(),
            ])
        try #require(set.status == 0, "\(set.standardError)")
    }

    @Test func aGroupWritableLibraryIsRefusedUnlessTheGroupIsItsOwnersPrivateGroup() throws {
        let lab = try PluginLab()
        try #require(chmod(lab.library, 0o664) == 0)
        #expect(throws: Never.self) { try PluginPermissions.check(lab.library) }  // root's group is root's own

        try #require(chown(lab.library, 0, gid_t(Self.stranger)) == 0)
        let validate = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first?.hasPrefix(
                "\(lab.library): file \(lab.library) (mode 0664) is writable by group 4321 and owned by 'root' (uid 0);"
            )
                == true)
    }

    /// The sticky bit holds a group's members back as it holds others: a library in a directory of mode 1775
    /// whose group is not its owner's private group is loaded, but that directory is no discovered directory.
    @Test func aStickyDirectoryItsGroupCanWriteIsAcceptedOnThePathButNotToDiscoverFrom() throws {
        let lab = try PluginLab()
        try #require(chown(lab.directory, 0, gid_t(Self.stranger)) == 0)
        try #require(chmod(lab.directory, 0o1775) == 0)
        #expect(try Subprocess.flowhost(["validate", lab.manifest]).status == 0)

        let manifest = try lab.temporary.file(
            "discover.json", containing: #"{"manifestVersion": 1, "discover": ["plugins"]}"#)
        let validate = try Subprocess.flowhost(["validate", manifest])
        #expect(validate.status == 65)
        #expect(
            validate.errorLines.first?.hasPrefix(
                "\(lab.directory): discovered directory refused: directory \(lab.directory) (mode 1775) is writable by group 4321 and owned by 'root' (uid 0);"
            ) == true, "\(validate.errorLines)")
    }

    @Test func aManifestScriptTraceOrSnapshotAnotherUserOwnsIsWarnedAboutAndStillRun() throws {
        let lab = try PluginLab()
        try #require(chown(lab.manifest, Self.stranger, 0) == 0 && chown(lab.script, Self.stranger, 0) == 0)

        let run = try Subprocess.flowhost(["run", lab.manifest, "--script", lab.script])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.errorLines == [
                "flowhost: warning: manifest \(lab.manifest): file \(lab.manifest) (mode 0644) is owned by uid 4321, neither root nor uid 0; its owner can change what flowhost runs",
                // A script's `save` writes over any file of the user's it names.
                "flowhost: warning: script \(lab.script): file \(lab.script) (mode 0644) is owned by uid 4321, neither root nor uid 0; its owner can change what flowhost runs and which of your files it writes",
            ])
        // `validate` warns of the manifest too, and `--strict` counts the warning as a problem.
        let validate = try Subprocess.flowhost(["validate", lab.manifest])
        #expect(validate.status == 0, "\(validate.standardError)")
        #expect(validate.errorLines.first?.hasPrefix("flowhost: warning: manifest \(lab.manifest): ") == true)
        let strict = try Subprocess.flowhost(["validate", lab.manifest, "--strict"])
        #expect(strict.status == 65, "\(strict.standardError)")
        #expect(strict.errorLines.last == "\(lab.manifest): 1 warning, which --strict counts as problems")
        for strictly in [false, true] {
            let json = try Subprocess.flowhost(["validate", lab.manifest, "--json"] + (strictly ? ["--strict"] : []))
            let document = try JSONValue(parsing: json.standardOutput)
            #expect(json.status == (strictly ? 65 : 0))
            #expect(document["valid"] == .bool(!strictly))
            #expect(document["warnings"]?[0]?["kind"] == "manifestOthersCanChange", "\(json.standardOutput)")
        }
        let trace = lab.temporary.path + "/run.jsonl"
        try #require(
            try Subprocess.flowhost(["run", lab.manifest, "--script", lab.script, "--trace", trace]).status == 0)
        try #require(chown(trace, Self.stranger, 0) == 0)
        #expect(
            try Subprocess.flowhost(["replay", trace, "--manifest", lab.manifest]).errorLines.first
                == "flowhost: warning: trace \(trace): file \(trace) (mode 0644) is owned by uid 4321, neither root nor uid 0; its owner can change what flowhost runs"
        )
        let snapshot = lab.temporary.path + "/session.json"
        let saving = try lab.temporary.file("save.flow", containing: "save \(snapshot)\n")
        try #require(try Subprocess.flowhost(["run", lab.manifest, "--script", saving]).status == 0)
        try #require(chown(snapshot, Self.stranger, 0) == 0 && chmod(snapshot, 0o644) == 0)
        let restored = try Subprocess.flowhost(["run", lab.manifest, "--restore", snapshot], input: "quit\n")
        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(
            restored.errorLines.last
                == "flowhost: warning: snapshot \(snapshot): file \(snapshot) (mode 0644) is owned by uid 4321, neither root nor uid 0; its owner can change what flowhost runs"
        )
        let restoring = try lab.temporary.file("restore.flow", containing: "restore \(snapshot)\n")
        let restoredInShell = try Subprocess.flowhost(["run", lab.manifest, "--script", restoring])
        #expect(restoredInShell.status == 0, "\(restoredInShell.standardError)")
        #expect(
            restoredInShell.outputLines.contains(
                "  warning: snapshot \(snapshot): file \(snapshot) (mode 0644) is owned by uid 4321, neither root nor uid 0; its owner can change what flowhost runs"
            ), "\(restoredInShell.standardOutput)")
        let allowed = try Subprocess.flowhost(
            ["run", lab.manifest, "--script", lab.script, "--allow-insecure-plugins"])
        #expect(allowed.status == 0 && allowed.errorLines.isEmpty, "\(allowed.standardError)")
    }
}

/// A copy of the welcome plugin in a directory of its own, a manifest routing to it and a script.
struct PluginLab {
    let temporary: TemporaryDirectory
    let directory: String
    let library: String
    let manifest: String
    let script: String

    init() throws {
        temporary = try TemporaryDirectory()
        directory = temporary.path + "/plugins"
        try #require(mkdir(directory, 0o755) == 0)
        library = directory + "/libWelcomePlugin.so"
        let descriptor = open(library, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let bytes = try BuildProducts.bytes(of: "libWelcomePlugin.so")
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        manifest = try temporary.file("app.json", containing: Self.manifestText(library: library))
        script = try temporary.file("app.flow", containing: "expect top welcome\n")
    }

    static func manifestText(library: String) -> String {
        """
        {"manifestVersion": 1, "plugins": {"welcome": "\(library)"},
         "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
        """
    }
}
