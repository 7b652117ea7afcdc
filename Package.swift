// swift-tools-version:6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 mode is set package-wide below; these add the strictest checks.
///
/// `MemberImportVisibility` (SE-0444): a file uses the members of another module's types only if it imports that
/// module. An incremental build recompiles a file after a change of a struct's stored properties only when the file
/// imports the struct's module; the shell once read `Manifest`'s fields through `host.manifest` without importing
/// `FlowManifest`, kept the old field offsets after a field was added, and crashed with SIGSEGV at its first `open`.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The bundled plugins. Each one is its own dynamic library product, loaded by the host with dlopen.
let bundledPlugins = ["WelcomePlugin", "AuthPlugin", "CatalogPlugin", "SettingsPlugin", "ExpressPlugin"]

/// Plugins only the tests load: two generations of one plugin, for hot swap, and a broken build of it (a route to a
/// manager it does not export), for a refused one; one with its own FlowKit, and one
/// whose code traps once called, for supervised runs, and one whose route needs what an async service sets, for
/// restores.
let fixturePlugins = [
    "GreeterPluginV1", "GreeterPluginV2", "GreeterPluginV3", "StaticSDKPlugin", "CrashyPlugin", "HangyPlugin",
    "TripPlugin",
]

/// Bad libraries, in C, that the host must survive: constructors that abort, segfault, exit, hang, fork a
/// helper that holds the probe's pipe, start a thread that segfaults, close descriptors they never opened or
/// stop their process, an entry point that traps or stops at a breakpoint, an entry symbol that is data, an
/// entry that returns null or a forged header.
let badLibraries = [
    "BadAbortPlugin", "BadSegfaultPlugin", "BadExitPlugin", "BadHangPlugin", "BadTrapPlugin", "BadBreakpointPlugin",
    "BadDataEntryPlugin", "BadNullEntryPlugin", "BadForgedHeaderPlugin", "BadForkPlugin", "BadThreadPlugin",
    "BadClosedDescriptorsPlugin", "BadStopPlugin",
]

/// A library the tests preload into flowhost: `memfd_create` fails, as on a kernel without memfds.
let preloadLibraries = ["NoMemfdPreload"]

let flowKit = Target.Dependency.product(name: "FlowKit", package: "FlowKit")

/// The host's targets, by concern, in the order they depend on each other.
let hostTargets: [Target.Dependency] = [
    "HostSupport", "FlowManifest", "PluginLoading", "FlowComposition", "FlowHost", "LineEditing", "FlowShell",
    "FlowTraces", "FlowSupervision",
]

let package = Package(
    name: "FlowHost",
    products: [
        .executable(name: "flowhost", targets: ["flowhost"])
    ]
        + (bundledPlugins + fixturePlugins + badLibraries + preloadLibraries).map {
            .library(name: $0, type: .dynamic, targets: [$0])
        },
    dependencies: [
        // A path dependency, so that host and plugins share the one dynamic libFlowKit.so.
        .package(path: "FlowKit"),
        .package(path: "FlowKit/FlowKitTesting"),
    ],
    targets: [
        // MARK: - Host
        // One target per concern, each depending only on those listed before it (CONTRIBUTING.md: Layout).
        // FlowKit's value types (JSONValue, FlowError) are the common vocabulary.
        // POSIX support: files, descriptors, a mutex, directory watches, process facts.
        .target(name: "HostSupport", dependencies: [flowKit, "CExtendedAttributes", "CProcessControl", "CSHA256"]),
        // The manifest: parsing, versions and ranges, its errors.
        .target(name: "FlowManifest", dependencies: [flowKit, "HostSupport"]),
        // Plugin libraries: the search path and discovery, ELF checks, permissions, copies, probes and their
        // cache, quarantine, loading, crash breadcrumbs.
        .target(
            name: "PluginLoading",
            dependencies: [flowKit, "HostSupport", "FlowManifest", "CCrashHandler", "CProcessControl"]),
        // What the manifest and the plugins say together: routes, services, guards, requirements.
        .target(name: "FlowComposition", dependencies: [flowKit, "FlowManifest", "PluginLoading"]),
        // The host: routing to plugins, reload, snapshots, experiments, validation.
        .target(
            name: "FlowHost",
            dependencies: [flowKit, "HostSupport", "FlowManifest", "PluginLoading", "FlowComposition"]
        ),
        // The terminal and a line editor, knowing nothing of flows.
        .target(name: "LineEditing", dependencies: [flowKit, "HostSupport"]),
        // The shell: its commands on a host, help and completion.
        .target(
            name: "FlowShell",
            dependencies: [
                flowKit, "HostSupport", "FlowManifest", "PluginLoading", "FlowComposition", "FlowHost", "LineEditing",
            ]),
        // Traces: recording, replay, graphs, experiment reports.
        .target(
            name: "FlowTraces",
            dependencies: [
                flowKit, "HostSupport", "FlowManifest", "PluginLoading", "FlowComposition", "FlowHost", "FlowShell",
            ]),
        // Supervised runs: the supervisor's restart policy and incidents, the supervised host's side of the link.
        .target(
            name: "FlowSupervision",
            dependencies: [
                flowKit, "HostSupport", "PluginLoading", "FlowHost", "LineEditing", "FlowShell", "CProcessControl",
            ]),
        // The supervised host's crash handler: async-signal-safe, so in C.
        .target(name: "CCrashHandler"),
        .target(name: "CExtendedAttributes"),
        // prctl(2), which Swift cannot call: a probe asks to end with the flowhost that started it; pipe2(2), which
        // the Glibc module does not import: pipes are closed on exec from the moment they exist; memfd_create(2)
        // and tgkill(2), which older glibc lacks.
        .target(name: "CProcessControl"),
        // SHA-256's rounds with the processor's SHA instructions, which only C intrinsics reach.
        .target(name: "CSHA256"),
        .executableTarget(name: "flowhost", dependencies: hostTargets + [flowKit]),
        // Benchmarks: swift build -c release && swift run -c release flowbench
        .executableTarget(name: "flowbench", dependencies: hostTargets + [flowKit]),

        // MARK: - Tests
        .testTarget(name: "FlowKitTests", dependencies: [flowKit]),
        .testTarget(name: "FlowHostTests", dependencies: hostTargets + [flowKit, "CPseudoTerminal"]),
        // posix_openpt(3) and its kin, which the Glibc module does not import: the tests' terminals.
        .target(name: "CPseudoTerminal", path: "Tests/CPseudoTerminal"),
        .testTarget(
            name: "FlowKitTestingTests",
            dependencies: [flowKit, .product(name: "FlowKitTesting", package: "FlowKitTesting")]),
        // The bundled plugins' flows through FlowKitTesting (the plugins themselves are dlopened).
        .testTarget(
            name: "PluginFlowTests",
            dependencies: hostTargets + [flowKit, .product(name: "FlowKitTesting", package: "FlowKitTesting")]),
    ] + bundledPlugins.map { .target(name: $0, dependencies: [flowKit], path: "Plugins/\($0)") }
        + fixturePlugins.map {
            .target(
                name: $0, dependencies: [flowKit] + ($0 == "CrashyPlugin" ? ["CrashyThreads"] : []),
                path: "Tests/Fixtures/\($0)")
        }
        // The crashy plugin's threads that need C: a start routine that jumps into libc (a tail call).
        + [.target(name: "CrashyThreads", path: "Tests/Fixtures/CrashyThreads")]
        + (badLibraries + preloadLibraries).map {
            .target(name: $0, path: "Tests/Fixtures/\($0)", publicHeadersPath: ".")
        },
    swiftLanguageModes: [.v6]
)

let cTargets: Set = [
    "CCrashHandler", "CExtendedAttributes", "CProcessControl", "CPseudoTerminal", "CSHA256", "CrashyThreads",
]
for target in package.targets
where !(badLibraries + preloadLibraries).contains(target.name) && !cTargets.contains(target.name) {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: sharedSettings)
    target.swiftSettings = settings
}
