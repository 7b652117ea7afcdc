import FlowKit

let generation = 1
let extraManagers: [ManagerFactory] = []
let extraRoutes: [DeclaredRoute] = []
