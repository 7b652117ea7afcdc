import FlowKit
import HostSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Manifest {
    /// The bytes of the regular file at `path`, at most `maxSize` of them, or one error saying why not.
    package static func readFile(_ path: String, maxSize: Int = defaultMaxSize) throws(ManifestErrors) -> [UInt8] {
        do {
            return try InputFile.read(path, what: "manifest file", limit: maxSize)
        } catch {
            let kind: ManifestError.Kind =
                switch error.kind {
                case .notFound: .fileNotFound
                case .notRegular: .notRegularFile
                case .tooLarge: .tooLarge
                case .symlinkLoop, .unreadable: .unreadable
                }
            let hint = error.kind == .tooLarge ? "; pass --max-manifest-size BYTES to read it anyway" : ""
            throw ManifestErrors([ManifestError(file: path, kind: kind, message: error.message + hint)])
        }
    }

    /// The text of `bytes`, or a `notJSON` error at the line and column of the first invalid UTF-8 byte (with
    /// a hint when `bytes` are a shared library, given where its manifest goes).
    static func decodeUTF8(_ bytes: [UInt8], file: String) throws(ManifestErrors) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }  // fast; the walk finds where
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                if scalar.count == 1, scalar.first == 0x0A { (line, column) = (line + 1, 1) } else { column += 1 }
            case .emptyInput:
                return String(decoding: bytes, as: UTF8.self)
            case .error:
                let reason = JSONSyntaxError(line: line, column: column, reason: "invalid UTF-8")
                let message = "not valid JSON: \(reason)" + libraryHint(bytes)
                throw ManifestErrors([ManifestError(file: file, kind: .notJSON, message: message)])
            }
        }
    }

    /// `path` made absolute against the directory the run started in (``WorkingDirectory/start``), lexically
    /// normalised: not the working directory of the moment, which plugin code may have changed.
    package static func absolutePath(_ path: String) -> String {
        normalisedPath(path, relativeTo: WorkingDirectory.start)
    }

    /// `path` made absolute against `base` (itself absolute), with `.`, `..` and repeated slashes removed
    /// lexically; symbolic links are not resolved.
    package static func normalisedPath(_ path: String, relativeTo base: String) -> String {
        var parts: [Substring] = []
        for part in (path.hasPrefix("/") ? path : base + "/" + path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
