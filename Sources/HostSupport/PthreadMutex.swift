import Glibc

/// A value guarded by a `pthread_mutex_t`, used as `Synchronization.Mutex` is: `state.withLock { $0 ... }`.
///
/// `Mutex` parks a contended thread on a futex, which ThreadSanitizer does not model: a lock taken after a
/// wait orders nothing TSan can see, so it reports the guarded value as raced although the lock is sound.
/// TSan intercepts pthread mutexes, so with this lock it checks the code under the lock instead. Uncontended,
/// both cost an atomic operation to lock and one to unlock; the value and the mutex share one allocation.
///
/// A copy of FlowKit's (`FlowKit/Sources/FlowKit/PthreadMutex.swift`), which stays internal to FlowKit rather
/// than join the API every plugin links; keep the two alike.
package struct PthreadMutex<Value> {
    private let storage: Storage

    package init(_ initialValue: Value) {
        storage = Storage.make(initialValue)
    }

    /// Runs `body` with the value, holding the lock; no other thread can reach the value meanwhile.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            let locked = pthread_mutex_lock(mutex)
            precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// Runs `body` with the value if the lock is free now, holding it; `nil`, without waiting, when another thread
    /// holds it. For a child that plugin code forked, which never sees a lock held at the fork given back.
    package func withLockIfFree<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result? {
        try storage.withUnsafeMutablePointers { value, mutex in
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// The value (the header) and the mutex (the one element) in one heap object, whose address never moves.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ initialValue: Value) -> Storage {
            let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in initialValue }, to: Storage.self)
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
