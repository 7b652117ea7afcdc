import FlowKit
import Glibc

/// What a reload does to the managers of the plugin's previous generations.
///
/// Screens already shown keep the managers (and the code) that built them, and so do managers that work
/// without a screen and wait for something, such as a child flow's result. A manager working in the
/// background, answering `.working` with tasks of its own running, is replaced: its tasks are cancelled
/// and it ends as ``ManagerEndReason/replaced``, so that no old code keeps running unseen in a host that
/// runs for a long time. The new generation serves the next request.
extension Host {
    /// Ends the background managers whose code lives in an image plugin `name` no longer serves from.
    ///
    /// - Parameter retired: The library the previous generation was loaded from.
    /// - Returns: How many managers ended.
    @discardableResult
    func replaceBackgroundManagers(of name: String, retiring retired: String?) -> Int {
        if let retired { retiredLibraries[name, default: []].insert(retired) }
        guard let libraries = retiredLibraries[name], !libraries.isEmpty else { return 0 }
        return coordinator.replaceBackgroundManagers { manager in
            imagePath(of: type(of: manager)).map(libraries.contains) ?? false
        }
    }
}

/// The path of the loaded image that defines `type`, as it was opened; `nil` for a type whose metadata
/// the runtime made at run time (a generic class).
func imagePath(of type: any Any.Type) -> String? {
    guard let dladdr = ImageLookup.dladdr else { return nil }
    let metadata = UnsafeRawPointer(bitPattern: UInt(bitPattern: ObjectIdentifier(type)))
    // Dl_info is four pointers: dli_fname, dli_fbase, dli_sname, dli_saddr.
    var info = [UnsafeRawPointer?](repeating: nil, count: 4)
    let found = info.withUnsafeMutableBytes { dladdr(metadata, $0.baseAddress) }
    guard found != 0, let file = info[0] else { return nil }
    return String(cString: file.assumingMemoryBound(to: CChar.self))
}

/// glibc's `dladdr`, which the Glibc module leaves out (it is a GNU extension), found at run time.
private enum ImageLookup {
    typealias DLAddr = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32

    /// `dlsym(RTLD_DEFAULT, "dladdr")`.
    static let dladdr: DLAddr? = dlsym(nil, "dladdr").map { unsafeBitCast($0, to: DLAddr.self) }
}
