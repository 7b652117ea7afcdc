import Foundation
import Glibc
import Testing

@testable import FlowShell
@testable import FlowSupervision

/// A host restarted at the cap takes over its predecessor's session from the supervisor's directory, and
/// only its predecessor's: a host of an earlier build between them writes the unwaited reloads alone, and
/// leaves the carry-over of the host before it, which must not come back.
@MainActor
struct SupervisorLinkCarryOverTests {
    static func link(in directory: TemporaryDirectory, atCap: Bool = true) -> SupervisorLink {
        SupervisorLink(
            directory: directory.path, source: "<stdin>", ending: atCap ? nil : .crash, isRestartAtCap: atCap,
            restartsAtCap: true,
            commandInput: STDIN_FILENO, commands: nil, startToken: "")
    }

    static let carried = ShellCarryOver(
        unwaitedReloads: ["auth"], heldFailure: .init(message: "no route handles home.show", line: 2))

    @Test func theCarryOverWrittenAfterTheUnwaitedReloadsIsTakenOnce() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.file("unwaited-reloads", containing: Array("auth\n".utf8))
        _ = try directory.file("carry-over.json", containing: Array(Self.carried.json.utf8))
        let link = Self.link(in: directory)
        let taken = link.takeCarryOver()
        #expect(taken.holdsSession && taken.heldFailure == Self.carried.heldFailure)
        #expect(taken.unwaitedReloads == ["auth"])
        #expect(!link.takeCarryOver().holdsSession)
    }

    @Test func anOlderCarryOverThanTheUnwaitedReloadsIsAnEarlierHostsAndLeftOut() throws {
        let directory = try TemporaryDirectory()
        let old = try directory.file("carry-over.json", containing: Array(Self.carried.json.utf8))
        var past = [timespec(tv_sec: time(nil) - 60, tv_nsec: 0), timespec(tv_sec: time(nil) - 60, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, old, &past, 0) == 0)
        _ = try directory.file("unwaited-reloads", containing: Array("greeter\n".utf8))
        let taken = Self.link(in: directory).takeCarryOver()
        #expect(!taken.holdsSession && taken.heldFailure == nil)
        #expect(taken.unwaitedReloads == ["greeter"])
        #expect(access(old, F_OK) != 0)
    }

    @Test func aHostRestartedAfterACrashTakesNothingAndRemovesBoth() throws {
        let directory = try TemporaryDirectory()
        let unwaited = try directory.file("unwaited-reloads", containing: Array("auth\n".utf8))
        let carryOver = try directory.file("carry-over.json", containing: Array(Self.carried.json.utf8))
        let taken = Self.link(in: directory, atCap: false).takeCarryOver()
        #expect(!taken.holdsSession && taken.unwaitedReloads.isEmpty)
        #expect(access(unwaited, F_OK) != 0 && access(carryOver, F_OK) != 0)
    }
}
