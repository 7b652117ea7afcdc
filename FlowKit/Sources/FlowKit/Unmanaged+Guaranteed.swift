extension Unmanaged {
    /// Calls `body` with the instance, neither retained nor released around the call: the request path's
    /// way to use an object that something else is known to keep alive meanwhile.
    ///
    /// The same as the standard library's `_withUnsafeGuaranteedRef`, called from here so that a closure
    /// written in code isolated to the main actor is passed on as a plain function value: handed to the
    /// standard library directly, such a closure gets a dynamic check that it runs on the main actor,
    /// which costs more than the retain it saves.
    @inline(__always)
    func withGuaranteed<Result>(_ body: (Instance) -> Result) -> Result {
        _withUnsafeGuaranteedRef(body)
    }
}
