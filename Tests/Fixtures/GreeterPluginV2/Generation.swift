import FlowKit

let generation = 2
/// A manager generation 1 lacks, so that swapping back to it can be refused.
let extraManagers: [ManagerFactory] = [ManagerFactory("Farewell", GreeterManager.self)]
/// Its route, which a manifest that discovers the plugin takes once this generation is dropped in.
let extraRoutes: [DeclaredRoute] = [DeclaredRoute("bye", manager: "Farewell")]
