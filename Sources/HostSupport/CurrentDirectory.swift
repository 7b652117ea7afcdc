import Glibc

/// The current directory, for making paths absolute.
package func currentDirectory() -> String {
    guard let buffer = getcwd(nil, 0) else { return "/" }
    defer { free(buffer) }
    return String(cString: buffer)
}
