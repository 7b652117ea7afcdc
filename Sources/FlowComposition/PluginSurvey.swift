import FlowKit
import FlowManifest
import HostSupport
import PluginLoading

/// A manifest's plugins as probes see them (``PluginProber``): what `validate` and `list --eager` check,
/// without running any plugin code in this process.
@MainActor
package struct PluginSurvey {
    /// Each plugin's probe, by plugin name.
    package private(set) var results: [String: Result<ProbedPlugin, PluginLoadError>] = [:]
    package let manifest: Manifest
    /// The manifest as written, when ``manifest`` is composed with what plugins declare: where problems'
    /// places are counted.
    package var declared: Manifest?
    /// The entry points of each probed plugin that a supervised run quarantined, as its file is now: a route
    /// or service naming one is refused by every run until the file changes.
    private var quarantined: [String: [PluginEntryPoint: PluginQuarantine.Entry]] = [:]

    /// Probes every plugin `manifest` declares, found through `searchPath`, in name order, as one batch (the
    /// registry cache is written once); a pinned library's digest is checked first.
    ///
    /// - Parameters:
    ///   - known: Plugins probed already (by discovery), by name, which are not probed again.
    ///   - declared: The manifest as written, when `manifest` is its composition.
    package init(
        manifest: Manifest, searchPath: PluginSearchPath, prober: PluginProber, known: [String: ProbedPlugin] = [:],
        declared: Manifest? = nil
    ) {
        self.manifest = manifest
        self.declared = declared
        prober.beginBatch()
        defer { prober.endBatch() }
        for name in manifest.plugins.keys.sorted() {
            if let probed = known[name] {
                results[name] = .success(probed)
                continue
            }
            guard let entry = manifest.plugins[name] else { continue }
            do throws(PluginLoadError) {
                let path = try searchPath.locate(entry.library, relativeTo: manifest.directory, plugin: name)
                if let pin = entry.sha256 {
                    try PluginCopy(reading: path, allowInsecure: prober.allowInsecure).verify(sha256: pin)
                }
                results[name] = .success(try prober.probe(path, pin: entry.sha256))
            } catch {
                results[name] = .failure(error)
            }
        }
        guard let quarantine = prober.quarantine else { return }
        for case (let name, .success(let probed)) in results {
            quarantined[name] = quarantine.entryPoints(of: probed.path, identity: FileIdentity(path: probed.path))
        }
    }

    /// Every problem, as ``Host/check(manifest:registry:)`` reports them: plugins that do not load, modules
    /// they declare presented by managers they do not export (``ProbedPlugin/declarationProblems``), then
    /// routes' and experiments' managers and services that their plugins do not export, each at its place
    /// in the manifest (`routes[1].manager`).
    package var problems: [PluginLoadError] {
        var problems = manifest.plugins.keys.sorted().flatMap { name -> [PluginLoadError] in
            switch results[name] {
            case .failure(let error): [error]
            case .success(let probed): probed.declarationProblems
            case nil: []
            }
        }
        for reference in manifest.exportReferences(declared: declared) {
            guard let result = results[reference.plugin] else {
                // A composition leaves out a plugin it refused or found nowhere, and has said why.
                guard declared == nil else { continue }
                problems.append(
                    PluginLoadError(
                        file: manifest.path, kind: .notFound,
                        message: "no plugin named '\(reference.plugin)' in the manifest"))
                continue
            }
            switch result {
            case .failure(let error): problems.append(error)
            case .success(let probed):
                let (what, exported) =
                    reference.isService ? ("service", probed.services) : ("manager", probed.managers.map(\.name))
                guard !exported.contains(reference.name) else { continue }
                // The manifest's mistake, said at its place there, as a manifest reload says it; a route a
                // plugin declared is its library's.
                problems.append(
                    PluginLoadError(
                        file: reference.place == nil ? probed.path : manifest.path,
                        kind: reference.isService ? .unknownService : .unknownManager,
                        message: PluginLoadError.notExported(
                            what, reference.name, by: reference.plugin, exports: exported),
                        place: reference.place))
            }
        }
        return PluginLoadError.unique(problems + quarantinedReferences)
    }

    /// The refusals of the managers and services the routes and services name that a supervised run
    /// quarantined (as their files are now): every run refuses them, so `validate` and `list --eager` do too.
    package var quarantinedReferences: [PluginLoadError] {
        manifest.exportReferences(declared: declared).compactMap { reference in
            refusal(of: reference.isService ? .service(reference.name) : .manager(reference.name), of: reference.plugin)
        }
    }

    /// The refusal of `entryPoint` of plugin `plugin` when a supervised run quarantined it, as its file is now.
    package func refusal(of entryPoint: PluginEntryPoint, of plugin: String) -> PluginLoadError? {
        quarantined[plugin]?[entryPoint].map { PluginQuarantine.refusal($0, plugin: plugin) }
    }

    /// The requirements of the plugins probed that are not met, and the cycles among them: what refuses a
    /// plugin of `plugins` when it first loads (``PluginRegistry``), in the same words. For a manifest that
    /// discovers, its composition has said it already.
    package var requirementProblems: [PluginLoadError] {
        var problems: [PluginLoadError] = []
        var edges: [String: [String]] = [:]
        var libraries: [String: String] = [:]
        for name in manifest.plugins.keys.sorted() {
            guard case .success(let probed) = results[name] else { continue }
            libraries[name] = probed.path
            for requirement in PluginRequirement.all(of: name, library: probed.path, requires: probed.requires) {
                let found: PluginRequirement.Found =
                    switch results[requirement.required] {
                    case .success(let required): .present(version: required.version, library: required.path)
                    case .failure(let error): .refused(error)
                    case nil: .missing(why: "which is not there")
                    }
                if let refusal = requirement.refusal(found) {
                    problems.append(refusal)
                } else {
                    edges[name, default: []].append(requirement.required)
                }
            }
        }
        for cycle in PluginComposition.cycles(edges) {
            problems.append(
                PluginLoadError(
                    file: libraries[cycle[0]] ?? manifest.path, kind: .requirementCycle,
                    message: PluginComposition.cycleMessage(cycle)))
        }
        return problems
    }
}
