/// `count` and `noun`, the noun plural (with an `s`) unless the count is one: `1 route`, `3 routes`.
package func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
