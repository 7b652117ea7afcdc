import Testing

@testable import HostSupport

/// Who holds the lock that keeps flowhost from a file it is to write, as `/proc/locks` lists it.
struct FileLockHolderTests {
    /// A POSIX lock listed before the `flock` lock: it does not stand in `flock`'s way, and its process was
    /// named. Nor are a waiter's row, an open file description's (no process) or another file's.
    @Test func theProcessHoldingAFlockLockIsNamedBeforeOthers() {
        let locks = """
            1: POSIX  ADVISORY  WRITE 3707 08:01:1234567 0 EOF
            2: OFDLCK ADVISORY  READ  -1 08:01:1234567 0 EOF
            3: FLOCK  ADVISORY  WRITE 3600 08:01:7654321 0 EOF
            4: FLOCK  ADVISORY  WRITE 3704 08:01:1234567 0 EOF
            4: -> FLOCK  ADVISORY  WRITE 3710 08:01:1234567 0 EOF

            """

        #expect(FileLockHolder.holder(in: locks, of: "08:01:1234567") == 3704)
        // Where `flock` is made of POSIX locks (NFS), the POSIX lock's process; none for a lock of no process.
        let lines = locks.split(separator: "\n")
        #expect(FileLockHolder.holder(in: String(lines[0]), of: "08:01:1234567") == 3707)
        #expect(FileLockHolder.holder(in: String(lines[1]), of: "08:01:1234567") == nil)
    }
}
