import Glibc
import HostSupport
import Testing

/// What ``PathTrust`` makes of a path's end.
struct PathTrustTests {
    @Test func aPathEndingInDotOrDotDotIsCheckedAsTheDirectoryItNames() throws {
        // `/tmp` itself may not be discovered from, nor searched for libraries: others can add to it.
        let tmp = try #require(PathTrust.problem("/tmp", ending: .privateDirectory))
        #expect(PathTrust.problem("/tmp/.", ending: .privateDirectory) == tmp)
        #expect(PathTrust.problem("/tmp/../tmp/./.", ending: .privateDirectory) == tmp)
        // On the way to a file, the sticky bit keeps others from replacing what is not theirs.
        #expect(PathTrust.problem("/tmp/.", ending: .file) == nil)
    }
}
