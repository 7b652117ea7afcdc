import FlowKit
