import FlowKit
import FlowManifest
import PluginLoading

/// The names a plugin declares that hold a control character, refused as the manifest refuses its own
/// (``FlowManifest/ManifestError/Kind/controlCharacter``): a NUL cuts a name short where it meets C, and an
/// escape sequence in a request or module name would reach the messages, listings and traces that print it.
extension ProbedPlugin {
    /// The error of a route the plugin declares whose request, `from` module, child flow or manager holds a
    /// control character, naming the first such name; `nil` when every name is printable. Such a route is
    /// not routed.
    package func unprintableNameProblem(_ route: DeclaredRoute) -> PluginLoadError? {
        let names: [(what: String, name: String?)] = [
            ("request name", route.request.rawValue), ("module name", route.from?.rawValue),
            ("child flow name", route.childFlow?.rawValue), ("manager name", route.manager),
        ]
        for (what, name) in names {
            guard let name, let scalar = Self.firstControlCharacter(name) else { continue }
            let from = route.from.map { " from \(quoted($0.rawValue))" } ?? ""
            let flow = route.childFlow.map { " in child flow \(quoted($0.rawValue))" } ?? ""
            return unprintable(
                "a route for \(quoted(route.request.rawValue))\(from)\(flow) whose \(what)", scalar,
                then: "it is not routed")
        }
        return nil
    }

    /// One error per module the plugin declares whose name holds a control character.
    package var unprintableModuleProblems: [PluginLoadError] {
        modules.compactMap { module in
            Self.firstControlCharacter(module.module.rawValue).map {
                unprintable("module \(quoted(module.module.rawValue)), whose name", $0, then: nil)
            }
        }
    }

    /// `plugin 'p' declares WHAT contains the control character U+001B; ...`, in the library's name.
    private func unprintable(_ what: String, _ scalar: Unicode.Scalar, then outcome: String?) -> PluginLoadError {
        let code = String(scalar.value, radix: 16, uppercase: true)
        let name = "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
        return PluginLoadError(
            file: path, kind: .badEntry,
            message:
                "plugin '\(self.name)' declares \(what) contains the control character \(name); names must be printable\(outcome.map { "; \($0)" } ?? "")"
        )
    }

    /// The first scalar of `text` of general category Cc (U+0000-U+001F, U+007F-U+009F), or `nil`.
    static func firstControlCharacter(_ text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { $0.properties.generalCategory == .control }
    }
}
