/// A guard a plugin proposes (``PluginDescription/guards``): the requests matching ``requests`` are
/// redirected to ``redirect`` unless ``unless`` holds, and resumed once the redirect's flow has made it hold.
///
/// A manifest that discovers the plugin installs it as a ``RedirectGuard`` after the manifest's own guards,
/// as if the manifest had it in `guards`; the manifest's guard of the same name overrides it, and
/// `exclude.guards` leaves it out. The patterns are written as in the manifest and checked by the host,
/// which reports a bad one naming the plugin and installs nothing of that guard.
///
/// ```swift
/// guards: [DeclaredGuard("signedIn", requests: ["catalog.*"], unless: .context("user"), redirect: .signIn)]
/// ```
///
/// Since FlowKit 1.2.
public struct DeclaredGuard: Sendable, Hashable {
    /// The name events give the guard, unique among the guards a manifest ends up with.
    public var name: String
    /// The request patterns it applies to, as ``RequestPattern`` reads them: `catalog.detail`,
    /// `catalog.*` or `*`.
    public var requests: [String]
    /// While this holds, the guard lets every request through.
    public var unless: GuardCondition
    /// What to send instead, from the same module, while ``unless`` does not hold: a request some route
    /// handles.
    public var redirect: CoordinationRequest

    /// Proposes the guard `name`: `requests` redirected to `redirect` unless `unless` holds.
    public init(_ name: String, requests: [String], unless: GuardCondition, redirect: CoordinationRequest) {
        self.name = name
        self.requests = requests
        self.unless = unless
        self.redirect = redirect
    }

    /// Proposes the guard `name`, redirecting to the request `redirect` with no payload.
    public init(_ name: String, requests: [String], unless: GuardCondition, redirect: CoordinationRequestName) {
        self.init(name, requests: requests, unless: unless, redirect: CoordinationRequest(redirect))
    }

    /// The guard as a coordinator runs it.
    ///
    /// - Throws: ``FlowError`` when a pattern is not a ``RequestPattern``, or there is none.
    public func redirectGuard() throws(FlowError) -> RedirectGuard {
        guard !requests.isEmpty else {
            throw FlowError("guard '\(name)' applies to no request; give at least one pattern, such as \"catalog.*\"")
        }
        var patterns: [RequestPattern] = []
        for text in requests {
            do {
                patterns.append(try RequestPattern(text))
            } catch {
                throw FlowError("guard '\(name)': \(error.message)")
            }
        }
        return RedirectGuard(name: name, requests: patterns, unless: unless, redirect: redirect)
    }
}
