import Glibc
import LineEditing
import Testing

@testable import FlowHost
@testable import FlowShell
@testable import HostSupport

/// The shell's `reload` and Tab on a plugin discovery took out of use: removed (its library deleted from a
/// discovered directory), excluded by the manifest, or refused. `reload` (all) skips it; `reload NAME` of it
/// fails with one line saying why, but a removed or refused one is read again first, as a change to its file
/// is under `--watch`, and back once its file is. Tab offers a refused one, whose file may be fixed in place,
/// and not a removed or excluded one.
@MainActor
struct OutOfUsePluginShellTests {
    @Test func reloadOfAPluginWhoseLibraryWasRemovedSaysSoAndReloadAllAndTabLeaveItOut() throws {
        let (lab, library) = try Self.lab()
        let (shell, host) = try Self.shell(on: lab)
        try lab.remove("libGreeter.so")
        #expect(shell.execute("reload manifest").status == .ok)

        #expect(
            shell.execute("reload greeter").status
                == .error(
                    "plugin 'greeter' is no longer discovered: its library \(library) was removed; plugins: welcome"))
        let all = shell.execute("reload")
        #expect(all.status == .ok, "\(all.status)")
        #expect(!all.lines.contains { $0.contains("greeter") }, "\(all.lines)")
        #expect(host.registry.images(of: "greeter") == 1, "not loaded again")
        #expect(shell.completer.completions(before: "reload ").candidates == ["manifest", "welcome"])
    }

    @Test func reloadOfARemovedPluginWhoseLibraryIsBackBringsItBack() throws {
        let (lab, library) = try Self.lab()
        let (shell, host) = try Self.shell(on: lab)
        try lab.remove("libGreeter.so")
        #expect(shell.execute("reload manifest").status == .ok)
        try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")

        let result = shell.execute("reload greeter")

        #expect(result.status == .ok, "\(result.status)")
        let discovered = "discovered plugin 'greeter' at \(library): routes greet, bye go live"
        #expect(result.lines.contains { $0.hasPrefix(discovered) }, "\(result.lines)")
        #expect(host.registry.images(of: "greeter") == 2, "what is there now is loaded")
        #expect(shell.completer.completions(before: "reload ").candidates == ["greeter", "manifest", "welcome"])
    }

    @Test func reloadOfAnExcludedPluginSaysWhichEntryExcludesIt() throws {
        let (lab, _) = try Self.lab()
        let (shell, host) = try Self.shell(on: lab)
        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        #expect(shell.execute("reload manifest").status == .ok)

        #expect(
            shell.execute("reload greeter").status
                == .error("plugin 'greeter' is excluded by the manifest's exclude.plugins[0]; plugins: welcome"))
        #expect(!shell.execute("reload").lines.contains { $0.contains("greeter") })
        #expect(host.registry.images(of: "greeter") == 1, "not loaded again")
        #expect(shell.completer.completions(before: "wait reload ").candidates == ["welcome"])
    }

    @Test func reloadOfAPluginExcludedFromTheStartSaysSoRatherThanThatThereIsNone() throws {
        let (lab, _) = try Self.lab()
        try lab.writeManifest(members: #""exclude": {"plugins": ["greeter"]}"#)
        let shell = HostShell(host: try lab.host())

        #expect(
            shell.execute("reload greeter").status
                == .error("plugin 'greeter' is excluded by the manifest's exclude.plugins[0]; plugins: welcome"))
    }

    @Test func reloadOfARefusedListedPluginSaysWhyAndLoadsItOnceItsFileIsFixed() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        try lab.add("libWelcomePlugin.so")
        try lab.writeListed(Array("garbage\n".utf8))
        let (shell, _) = try Self.shell(on: lab, greet: false)

        let refused = shell.execute("reload greeter")
        guard case .error(let message) = refused.status else { throw TestFailure("\(refused.status)") }
        #expect(message.hasPrefix("plugin 'greeter' is refused: \(lab.listed): not an ELF shared object"), "\(message)")
        #expect(!message.contains("\n"))
        #expect(!shell.execute("reload").lines.contains { $0.contains("greeter") })
        #expect(shell.completer.completions(before: "reload ").candidates == ["greeter", "manifest", "welcome"])
        #expect(shell.completer.completions(before: "wait reload ").candidates == ["greeter", "welcome"])

        try lab.replaceListed(with: "libGreeterPluginV1.so")
        let fixed = shell.execute("reload greeter")

        #expect(fixed.status == .ok, "\(fixed.status)")
        #expect(
            fixed.lines.contains {
                $0.hasPrefix("discovered plugin 'greeter' at \(lab.listed): route greet goes live")
            },
            "\(fixed.lines)")
        #expect(shell.execute("send greet").status == .ok)
    }

    @Test func tabOffersAPluginRefusedAfterItServedAsReloadNameRetriesIt() throws {
        let good = try BuildProducts.bytes(of: "libGreeterPluginV1.so")
        let lab = try DropInLab(members: BrokenListedPluginTests.members(pin: SHA256.hex(good)))
        try lab.add("libWelcomePlugin.so")
        try lab.writeListed(good)
        let (shell, host) = try Self.shell(on: lab)
        try lab.writeManifest(members: BrokenListedPluginTests.members(pin: String(repeating: "a", count: 64)))
        #expect(shell.execute("reload manifest").status == .ok)
        let outOfUse = host.outOfUse("greeter")
        guard case .refused? = outOfUse else { throw TestFailure("not refused: \(String(describing: outOfUse))") }

        #expect(shell.completer.completions(before: "reload g").candidates == ["greeter"])
        #expect(shell.completer.completions(before: "wait reload ").candidates == ["greeter", "welcome"])
        #expect(!shell.execute("reload").lines.contains { $0.contains("greeter") }, "reload (all) leaves it out")
    }

    @Test func reloadOfARemovedPluginBackButRefusedAtTheCapFailsAndSaysTheRefusalOnce() throws {
        let (lab, _) = try Self.lab()
        let (shell, host) = try Self.shell(on: lab)
        host.registry.maxImagesPerPlugin = 1
        try lab.remove("libGreeter.so")
        #expect(shell.execute("reload manifest").status == .ok)
        try lab.add("libGreeterPluginV2.so", as: "libGreeter.so")

        let result = shell.execute("reload greeter")

        guard case .error(let message) = result.status else { throw TestFailure("\(result.status)") }
        #expect(message.hasPrefix("reload refused: "), "\(message)")
        #expect(message.contains("has been loaded 1 times, the limit"), "\(message)")
        #expect(!result.lines.contains { $0.contains("refused") }, "said once, by the error: \(result.lines)")
        #expect(host.registry.images(of: "greeter") == 1, "not loaded past the cap")
    }

    @Test func reloadOfAPluginRefusedAnewForAnotherReasonSaysItOnce() throws {
        let lab = try DropInLab(members: #""plugins": {"greeter": "./libGreeter.so"}"#)
        try lab.add("libWelcomePlugin.so")
        try lab.writeListed(Array("garbage\n".utf8))
        let (shell, _) = try Self.shell(on: lab, greet: false)
        try #require(unlink(lab.listed) == 0)

        let result = shell.execute("reload greeter")

        let reason = "\(lab.listed): library of plugin 'greeter' not found; check the path in the manifest"
        #expect(result.status == .error("plugin 'greeter' is refused: \(reason)"), "\(result.status)")
        #expect(!result.lines.contains { $0.hasPrefix("discovery: ") }, "said once, by the error: \(result.lines)")
    }

    // MARK: - Test Helpers

    /// A lab discovering welcome and greeter (as `libGreeter.so`, whose path is returned).
    static func lab() throws -> (DropInLab, String) {
        let lab = try DropInLab()
        try lab.add("libWelcomePlugin.so")
        return (lab, try lab.add("libGreeterPluginV1.so", as: "libGreeter.so"))
    }

    /// A shell on a host of `lab`, whose greeter served first (with `greet`).
    static func shell(on lab: DropInLab, greet: Bool = true) throws -> (HostShell, Host) {
        let host = try lab.host()
        let shell = HostShell(host: host)
        if greet { #expect(shell.execute("send greet").status == .ok) }
        return (shell, host)
    }
}
