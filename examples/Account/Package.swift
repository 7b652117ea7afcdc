// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Account",
    products: [
        // Dynamic: flowhost loads libAccount.so with dlopen.
        .library(name: "Account", type: .dynamic, targets: ["Account"])
    ],
    dependencies: [
        // FlowKit from a FlowHost checkout. These two lines are all to change when FlowKit is published.
        .package(path: "../../FlowKit"),
        .package(path: "../../FlowKit/FlowKitTesting"),
    ],
    targets: [
        // Depend on the FlowKit *product*, never on FlowKit's sources: host and plugins share one FlowKit.
        .target(name: "Account", dependencies: [.product(name: "FlowKit", package: "FlowKit")]),
        .testTarget(
            name: "AccountTests",
            dependencies: ["Account", .product(name: "FlowKitTesting", package: "FlowKitTesting")]),
    ],
    swiftLanguageModes: [.v6]
)
