// swift-tools-version:6.0
import PackageDescription

// FlowKit is the SDK shared by the host and every plugin. Its library product is dynamic on purpose:
// the process must hold exactly one copy of its types. Linked statically into both the host and a plugin,
// FlowKit would exist twice and `manager as? RequestCoordinatorManager` would fail across the boundary
// (two protocol descriptors). The test kit for plugin authors is the package in FlowKitTesting/, which
// depends on this product for the same reason.
let package = Package(
    name: "FlowKit",
    products: [
        .library(name: "FlowKit", type: .dynamic, targets: ["FlowKit"])
    ],
    targets: [
        .target(
            name: "FlowKit",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
                .unsafeFlags(["-enable-library-evolution"]),
            ])
    ],
    swiftLanguageModes: [.v6]
)
