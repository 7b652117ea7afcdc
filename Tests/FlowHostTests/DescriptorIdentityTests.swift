import Glibc
import HostSupport
import Testing

@testable import FlowSupervision

/// How a supervisor sees a host's descriptors through `/proc`, to tell one plugin code closed from the rest.
struct DescriptorIdentityTests {
    /// A host that ends between the supervisor's check that it runs and its look at the descriptors is a
    /// zombie whose descriptors are all gone: that is its end, not a descriptor closed (which a hung command's
    /// deadline would otherwise report as `lostDescriptor`, instead of how the host ended).
    @Test func aProcessThatHasEndedIsSeenAsEndedNotAsHavingClosedItsDescriptors() throws {
        let pid = try ProcessLaunch(executable: "/bin/sh", arguments: ["-c", "exit 0"], environment: []).start()
        defer {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        // Ended, not reaped: a zombie, as a host is until its supervisor's reaper takes it.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            try #require(errno == EINTR)
        }

        #expect(DescriptorIdentity.seen(0, of: pid) == .ended)
        #expect(DescriptorIdentity.seen(1, of: getpid()) != .ended)
    }
}
