/// A dependency key that knows the type of its value, so that readers get that type back without a cast and
/// setters cannot store another.
///
/// Its ``key`` is the plain ``DependencyKey`` it stands for: the name requirements, events, guards and
/// manifests use. Declare one per dependency, in a constrained extension, the way ``TypedRequest`` names a
/// request:
///
/// ```swift
/// extension TypedDependencyKey where Value == GreetingStore {
///     static let greetings = TypedDependencyKey("greeting.greetings")
/// }
/// coordinator.setDependency(.greetings, store)                       // only a GreetingStore
/// let store = coordinator.dependencies[.greetings]                   // a GreetingStore?
/// let store = try coordinator.dependencies.require(.greetings, hint: "start the Store service")
/// override class var requirements: [DependencyKey] { [DependencyKey(.greetings)] }
/// ```
public struct TypedDependencyKey<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The untyped key: the dependency's name.
    public let key: DependencyKey

    /// The typed key for the dependency named `key`.
    public init(_ key: DependencyKey) {
        self.key = key
    }

    /// The dependency's name.
    public var description: String { key.rawValue }
}

extension DependencyKey {
    /// The name of the typed key `typed`, for a manager's ``RequestCoordinatorManager/requirements``.
    public init<Value>(_ typed: TypedDependencyKey<Value>) {
        self = typed.key
    }
}

extension DependencyValues {
    /// The value for `key`, if it is set and is a `Value`.
    public subscript<Value>(key: TypedDependencyKey<Value>) -> Value? {
        self[key.key] as? Value
    }

    /// The value for `key`, or an error that says what is missing and how to provide it.
    ///
    /// A value of another type is reported as such: after a plugin reload, an object made by the old
    /// generation is not an instance of the new generation's class of the same name.
    ///
    /// - Parameters:
    ///   - key: The dependency's typed key.
    ///   - hint: How to set the dependency, appended to the message after `; `.
    /// - Throws: ``FlowError``, `dependency 'KEY' is not set; HINT` or
    ///   `dependency 'KEY' is a X, not a Value; HINT`.
    public func require<Value>(_ key: TypedDependencyKey<Value>, hint: String) throws(FlowError) -> Value {
        try value(of: key.key, as: Value.self, hint: hint)
    }

    /// Whether `key` is set, to a value of any type.
    public func contains<Value>(_ key: TypedDependencyKey<Value>) -> Bool {
        contains(key.key)
    }
}
