import CProcessControl
import Glibc
import HostSupport

extension PluginDependencies {
    /// `LD_LIBRARY_PATH`'s directories, as the dynamic loader reads them: once, as the process starts, so that
    /// setting the variable later changes nothing it does (a process started later, a probe's, reads its own).
    ///
    /// As `man ld.so` says, entries are separated by `:` or `;`, and an empty one (`:/opt/x`, `/opt/x:`) is
    /// the current directory; a variable that is empty has none. The loader expands `$ORIGIN` there to the
    /// program's directory, and `$LIB` and `$PLATFORM` to names of its own, which flowhost refuses rather than
    /// guesses.
    struct LibraryPath: Equatable {
        /// The variable's name, as problems name where the loader looks.
        static let name = "LD_LIBRARY_PATH"

        /// The entries, in order, as written; an empty one is the current directory.
        var entries: [String]
        /// The value, with each byte that is not part of UTF-8 escaped (`\xFF`), when it was not UTF-8; `nil`
        /// when it was. One that was not is refused, since it would be checked with a replacement character where
        /// the loader reads another byte.
        var notUTF8: String? = nil

        /// Whether the variable was UTF-8.
        var isUTF8: Bool { notUTF8 == nil }

        /// The entries of `value`, the variable's value; `nil` when it is not set.
        init(_ value: String?) {
            guard let value, !value.isEmpty else {
                entries = []
                return
            }
            entries = value.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == ";" }.map(String.init)
        }

        /// As the loader read it when this process started (taken by a constructor before any code of
        /// flowhost's ran, see `CProcessControl.h`).
        static let atStart: LibraryPath = {
            guard let value = flowhost_library_path_at_start() else { return LibraryPath(nil) }
            guard let text = String(validatingCString: value) else {
                var path = LibraryPath(String(cString: value))
                path.notUTF8 = PrintableText.escaping(atStartBytes ?? [])
                return path
            }
            return LibraryPath(text)
        }()

        /// The value ``atStart`` is made from, its bytes as they are (which need not be UTF-8), for a probe's
        /// environment, so that the probe's loader searches where this process's does; `nil` when it was not set.
        static var atStartBytes: [UInt8]? {
            flowhost_library_path_at_start().map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        }
    }
}
