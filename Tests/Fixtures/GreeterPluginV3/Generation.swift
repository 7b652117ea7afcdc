import FlowKit

let generation = 3
/// A broken build: it declares V2's route for `bye` but exports no `Farewell`, as a rebuild that dropped a
/// manager and kept its route would, so that reloading it can be refused.
let extraManagers: [ManagerFactory] = []
let extraRoutes: [DeclaredRoute] = [DeclaredRoute("bye", manager: "Farewell")]
