import Glibc

/// A value guarded by a `pthread_mutex_t`, used as `Synchronization.Mutex` is: `state.withLock { $0 ... }`.
///
/// `Mutex` parks a contended thread on a futex, which ThreadSanitizer does not model: a lock taken after a
/// wait orders nothing TSan can see, so it reports the guarded value as raced although the lock is sound.
/// TSan intercepts pthread mutexes, so with this lock it checks the code under the lock instead. Uncontended,
/// both cost an atomic operation to lock and one to unlock; the value and the mutex share one allocation.
///
/// The host has its own copy (`Sources/HostSupport/PthreadMutex.swift`): this one stays internal rather than
/// join the API every plugin links.
struct PthreadMutex<Value> {
    private let storage: Storage

    init(_ initialValue: Value) {
        storage = Storage.make(initialValue)
    }

    /// Runs `body` with the value, holding the lock; no other thread can reach the value meanwhile.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            let locked = pthread_mutex_lock(mutex)
            precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value (the header) and the mutex (the one element) in one heap object, whose address never moves.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ initialValue: Value) -> Storage {
            let storage = create(minimumCapacity: 1) { _ in initialValue } as! Storage
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                let initialized = pthread_mutex_init(mutex, nil)
                precondition(initialized == 0, "pthread_mutex_init failed: \(initialized)")
            }
            return storage
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}

// Every access to the value is under the lock, so the box is as sendable as what it holds.
extension PthreadMutex: @unchecked Sendable where Value: Sendable {}
