/// A deep link a plugin proposes (``PluginDescription/deepLinks``): URLs matching ``pattern`` open
/// ``requests`` in order, with the URL's captures filled into their payloads (see ``DeepLinkMapping``).
///
/// A manifest that discovers the plugin adds it after the manifest's own `deepLinks`, as if the manifest had
/// it; the manifest's deep link of the same pattern overrides it, and `exclude.deepLinks` leaves it out.
/// The pattern is written as in the manifest and checked by the host, which reports a bad one naming the
/// plugin and adds nothing of that link.
///
/// ```swift
/// deepLinks: [
///     DeclaredDeepLink("demo://items/new", opens: [CoordinationRequest(.createItem)]),
///     DeclaredDeepLink("demo://items/{id:int}", opens: [CoordinationRequest(.showDetail, payload: ["id": "{id}"])]),
/// ]
/// ```
///
/// Since FlowKit 1.2.
public struct DeclaredDeepLink: Sendable, Hashable {
    /// The URL pattern, as ``DeepLinkPattern`` reads it: `demo://items/{id:int}`.
    public var pattern: String
    /// The requests a matching URL opens, in order; a payload's `"{name}"` is the capture `name`.
    public var requests: [CoordinationRequest]
    /// Whether the link starts from the app's root, its modals dismissed, rather than from where the person is
    /// (``DeepLinkMapping/Route/fromRoot``); since FlowKit 1.8.
    public var fromRoot = false

    /// Proposes that URLs matching `pattern` open `requests`, from where the person is.
    public init(_ pattern: String, opens requests: [CoordinationRequest]) {
        self.pattern = pattern
        self.requests = requests
    }

    /// Proposes that URLs matching `pattern` open `requests`, from the app's root when `fromRoot` (FlowKit 1.8):
    /// `DeclaredDeepLink("demo://home", opens: [CoordinationRequest(.home)], fromRoot: true)`.
    public init(_ pattern: String, opens requests: [CoordinationRequest], fromRoot: Bool) {
        self.init(pattern, opens: requests)
        self.fromRoot = fromRoot
    }

    /// The link as a ``DeepLinkMapping`` routes it.
    ///
    /// - Throws: ``FlowError`` when the pattern is not a ``DeepLinkPattern``, it opens no request, or a
    ///   payload names a capture the pattern lacks.
    public func route() throws(FlowError) -> DeepLinkMapping.Route {
        try DeepLinkMapping.Route(DeepLinkPattern(pattern), steps: requests, fromRoot: fromRoot)
    }
}
