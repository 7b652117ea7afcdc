import Glibc

/// The name of a directory entry that `readdir(3)` returned, as bytes, up to its NUL.
///
/// Read in place, not as the 256-byte `d_name` field copied whole: the kernel's record for an entry holds
/// only the name's bytes and its NUL (`d_reclen`), so copying the whole field reads past the end of the
/// buffer `readdir` filled when the entry is its last (AddressSanitizer's heap-buffer-overflow in a
/// directory listing).
package func directoryEntryName(_ entry: UnsafePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let name = UnsafeRawPointer(entry) + offset
    return Array(UnsafeRawBufferPointer(start: name, count: strlen(name.assumingMemoryBound(to: CChar.self))))
}
