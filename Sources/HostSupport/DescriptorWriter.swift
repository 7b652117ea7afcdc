import Glibc

/// Writing a whole buffer to a file descriptor: `write` again after a short write or an interrupted one.
package enum DescriptorWriter {
    /// Writes all of `bytes` to `descriptor`; `false` when a write fails (`errno` says why), after part of
    /// them may have been written.
    @discardableResult
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
