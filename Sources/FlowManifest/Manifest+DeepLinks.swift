import FlowKit

/// The manifest's `deepLinks`: URL patterns and the requests each opens.
///
/// ```json
/// "deepLinks": [
///   {"pattern": "demo://items/{id:int}", "requests": [{"request": "catalog.detail", "payload": {"id": "{id}"}}]},
///   {"pattern": "demo://about", "requests": ["home.show", "settings.about"]}
/// ]
/// ```
extension ManifestParser {
    static let deepLinkKeys = ["pattern", "requests"]

    mutating func deepLinks(_ value: JSONValue?) -> DeepLinkMapping {
        var routes: [DeepLinkMapping.Route] = []
        var firstIndex: [String: Int] = [:]
        for (index, element) in elements(of: value, at: "deepLinks") {
            let path = "deepLinks[\(index)]"
            guard let members = object(element, at: path, allowed: Self.deepLinkKeys) else { continue }
            let text = requiredName("pattern", in: members, at: path, what: "pattern")
            let steps = required("requests", in: members, at: path).map { requests in
                elements(of: requests, at: path + ".requests").compactMap { step, element in
                    startRequest(element, at: "\(path).requests[\(step)]")
                }
            }
            guard let text, let steps else { continue }
            if let first = firstIndex[text] {
                report(
                    .badDeepLink, at: path, "duplicate pattern \(quoted(text)), first declared at deepLinks[\(first)]")
                continue
            }
            firstIndex[text] = index
            do {
                routes.append(try DeepLinkMapping.Route(DeepLinkPattern(text), steps: steps))
            } catch {
                report(.badDeepLink, at: path, error.message)
            }
        }
        return DeepLinkMapping(routes)
    }
}
