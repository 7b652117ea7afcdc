// swift-tools-version:6.0
import PackageDescription

// FlowKitTesting, the test kit for plugin authors, is a package of its own so that it can depend on
// FlowKit's dynamic *product*. A target beside FlowKit in FlowKit's package would link FlowKit's code
// statically into every test binary, and the process would hold two copies of FlowKit's types.
// SwiftPM names a path dependency after its directory: FlowKit's package is whatever this one's parent is
// called (`FlowKit` in a FlowHost checkout; `FlowKitCopy` where an author copied it).
let flowKitPackage = Context.packageDirectory.split(separator: "/").dropLast().last.map(String.init) ?? "FlowKit"

let package = Package(
    name: "FlowKitTesting",
    products: [
        .library(name: "FlowKitTesting", targets: ["FlowKitTesting"])
    ],
    dependencies: [
        .package(path: "..")
    ],
    targets: [
        .target(
            name: "FlowKitTesting",
            dependencies: [.product(name: "FlowKit", package: flowKitPackage)],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
                .unsafeFlags(["-enable-library-evolution"]),
            ])
    ],
    swiftLanguageModes: [.v6]
)
