// swift-tools-version:6.0
import PackageDescription

// FlowKit is the SDK shared by the host and every plugin. Its library product is dynamic on purpose:
// the process must hold exactly one copy of its types (see DYNAMIC-LOADING.md, fact 1).
let package = Package(
    name: "FlowKit",
    products: [
        .library(name: "FlowKit", type: .dynamic, targets: ["FlowKit"]),
        // Automatic (static): a test kit for plugin authors, linked into test bundles beside libFlowKit.so.
        .library(name: "FlowKitTesting", targets: ["FlowKitTesting"]),
    ],
    targets: [
        .target(name: "FlowKit", swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        .target(
            name: "FlowKitTesting", dependencies: ["FlowKit"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ],
    swiftLanguageModes: [.v6]
)
