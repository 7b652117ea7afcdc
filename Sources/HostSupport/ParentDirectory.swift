/// The directory `path` is in, lexically: `/` for `/a`, `.` for a relative name without a slash.
package func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
