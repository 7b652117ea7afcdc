/// The name of a dependency a coordinator can hold and a manager can require.
///
/// Open set. Plugins declare a ``TypedDependencyKey``, which carries the value's type and stands for one of
/// these (``TypedDependencyKey/key``); this name is what requirements, events, guards and manifests use.
public struct DependencyKey: FlowName {
    /// The name as spelled, such as `catalog.store`.
    public let rawValue: String
    /// Creates the key spelled `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// The dependencies set on a coordinator, by key.
///
/// Values are whatever the provider registers (a store, a client); a reader gets back the type a
/// ``TypedDependencyKey`` names, with `dependencies[typedKey]` or ``require(_:hint:)``. Values set on a
/// coordinator are seen by all its descendants.
public struct DependencyValues: @unchecked Sendable {
    // `@unchecked`: values are only ever read and written on the main actor, by the coordinators.
    private var storage: [DependencyKey: Any] = [:]

    /// No dependencies.
    public init() {}

    /// The value for `key`, if it is set.
    public subscript(key: DependencyKey) -> Any? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    /// The value for `key` if it is set and is a `T`.
    @available(*, deprecated, message: "declare a TypedDependencyKey<T> and read dependencies[typedKey]")
    public subscript<T>(key: DependencyKey, as type: T.Type) -> T? {
        storage[key] as? T
    }

    /// The value for `key` as a `T`, or an error that says what is missing and how to provide it.
    ///
    /// A value of another type is reported as such: after a plugin reload, an object made by the old
    /// generation is not an instance of the new generation's class of the same name.
    ///
    /// - Parameters:
    ///   - key: The dependency's name.
    ///   - type: The type the value must have.
    ///   - hint: How to set the dependency, appended to the message after `; `.
    /// - Throws: ``FlowError``, `dependency 'KEY' is not set; HINT` or `dependency 'KEY' is a X, not a T; HINT`.
    @available(*, deprecated, message: "declare a TypedDependencyKey<T> and call require(typedKey, hint:)")
    public func require<T>(_ key: DependencyKey, as type: T.Type, hint: String) throws(FlowError) -> T {
        try value(of: key, as: type, hint: hint)
    }

    /// The value for `key` as a `T`, or the error ``require(_:hint:)`` throws.
    func value<T>(of key: DependencyKey, as type: T.Type, hint: String) throws(FlowError) -> T {
        guard let value = storage[key] else { throw FlowError("dependency '\(key)' is not set; \(hint)") }
        guard let typed = value as? T else {
            let found = Swift.type(of: value)
            // Each copy of a plugin a reload loads has types of its own, named as the other copies' are.
            let what =
                String(reflecting: found) == String(reflecting: T.self)
                ? "a \(found) of another copy of its plugin (each generation a reload loads has types of its own)"
                : "a \(found), not a \(T.self)"
            throw FlowError("dependency '\(key)' is \(what); \(hint)")
        }
        return typed
    }

    /// Whether `key` is set.
    public func contains(_ key: DependencyKey) -> Bool { storage[key] != nil }

    /// The keys that are set, sorted.
    public var keys: [DependencyKey] { storage.keys.sorted() }

    /// `self` with `other`'s values added; `other` wins where both have a key.
    func merging(_ other: DependencyValues) -> DependencyValues {
        var merged = self
        merged.storage.merge(other.storage) { _, new in new }
        return merged
    }
}
