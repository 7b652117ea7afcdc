import FlowKit

let generation = 2
/// A manager generation 1 lacks, so that swapping back to it can be refused.
let extraManagers: [ManagerFactory] = [ManagerFactory("Farewell", GreeterManager.self)]
/// Its route, which a manifest that discovers the plugin takes once this generation is dropped in.
let extraRoutes: [DeclaredRoute] = [DeclaredRoute("bye", manager: "Farewell")]
/// Its declaration of `greeting`, with an action `wave` generation 1's screen lacks (its own does not have it
/// either: declarations describe, and nothing checks them), so that `act wave` on a screen generation 1 made
/// says that sending its request again may get it, and `act` of an action neither has does not.
let extraModules: [DeclaredModule] = [
    DeclaredModule("greeting", presentedBy: "Greeter", sends: [.action("wave", "greet")])
]
