/// Dotted paths into nested values: `"user.name"`, `"items.0.title"`.
extension JSONValue {
    /// The value at a dotted `path`, descending through object members by name and array elements by
    /// 0-based index; `nil` when any step is missing.
    ///
    /// ```swift
    /// let content: JSONValue = ["items": [["title": "Tent"]]]
    /// content.value(atPath: "items.0.title")  // "Tent"
    /// ```
    public func value(atPath path: String) -> JSONValue? {
        var current = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let next = current.member(String(component)) else { return nil }
            current = next
        }
        return current
    }

    /// The object member called `component`, or the array element it numbers.
    private func member(_ component: String) -> JSONValue? {
        switch self {
        case .object(let members): members[component]
        case .array: Int(component).flatMap { self[$0] }
        default: nil
        }
    }
}
