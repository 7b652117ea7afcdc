import CExtendedAttributes
import Glibc

/// Who else a file's POSIX access ACL (`system.posix_acl_access`, as `setfacl -m u:NAME:rwx` makes) lets
/// write it: the named users and groups whose entry grants write within the ACL's mask. The mode's group bits
/// show the mask once a file has an ACL, so these writers are what `st_mode` does not tell.
enum AccessControlList {
    /// A named user or group an ACL entry is about.
    enum Writer: Equatable, CustomStringConvertible {
        case user(uid_t)
        case group(gid_t)

        package var description: String {
            switch self {
            case .user(let uid): "uid \(uid)"
            case .group(let gid): "group \(gid)"
            }
        }
    }

    /// The named users and groups that the ACL of `path` (a final symbolic link not followed) lets write it;
    /// empty without an ACL, or on a file system without them.
    static func writers(of path: String) -> [Writer] {
        let name = "system.posix_acl_access"
        let size = flowhost_lgetxattr(path, name, nil, 0)
        guard size > 4 else { return [] }
        var bytes = [UInt8](repeating: 0, count: size)
        let read = flowhost_lgetxattr(path, name, &bytes, size)
        guard read > 4 else { return [] }
        // A version (4 bytes), then entries of a tag (2), permissions (2) and an id (4), little-endian.
        func number(_ offset: Int, _ count: Int) -> UInt32 {
            (0..<count).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        var named: [(writer: Writer, permissions: UInt32)] = []
        var mask: UInt32 = 0o7
        var offset = 4
        while offset + 8 <= read {
            let (tag, permissions, id) = (number(offset, 2), number(offset + 2, 2), number(offset + 4, 4))
            switch tag {
            case 0x02: named.append((.user(id), permissions))
            case 0x08: named.append((.group(id), permissions))
            case 0x10: mask = permissions
            default: break
            }
            offset += 8
        }
        let write: UInt32 = 0o2
        return named.filter { $0.permissions & mask & write != 0 }.map(\.writer)
    }
}
